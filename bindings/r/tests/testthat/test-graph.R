# The graph kernels: kernel = "knn" (normalized cut) and "heat" (exp(-t L) of the neighbour
# graph), fitted on points or, through kkm_fit_graph, on a sparse Matrix graph.

# Two concentric rings of uneven sizes: n_inner points of radius 1 and n_outer of radius 3.
uneven_rings <- function(n_inner = 150L, n_outer = 450L, noise = 0.1, seed = 1L) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    n <- n_inner + n_outer
    angle <- runif(n, 0, 2 * pi)
    radius <- rep(c(1, 3), c(n_inner, n_outer))
    x <- cbind(x1 = radius * cos(angle) + rnorm(n, sd = noise), x2 = radius * sin(angle) + rnorm(n, sd = noise))
    list(x = x, truth = rep(1:2, c(n_inner, n_outer)))
}

# Two cliques of a and b nodes with no edge between them (no self-loops), as a dgCMatrix.
two_cliques <- function(a = 6L, b = 9L) {
    A <- Matrix::bdiag(matrix(1, a, a), matrix(1, b, b))
    Matrix::diag(A) <- 0
    methods::as(Matrix::drop0(A), "generalMatrix")
}

# Every data seed: the fit seeds its k-means on the leading k heat coordinates, where the two
# rings' components are apart, before it uses all heat_rank (seeding in all of them at once
# split the long outer ring for 16 data seeds of 40).
test_that("heat and knn separate uneven rings of any draw with only k given", {
    for (data_seed in 1:6) {
        d <- uneven_rings(seed = data_seed)
        for (kernel in c("heat", "knn")) {
            fit <- kkmeans(d$x, 2, kernel = kernel, seed = 1, progress = FALSE)
            expect_gte(adjusted_rand_index(fitted(fit), d$truth), 0.95)
        }
    }
})

test_that("heat and knn separate uneven rings with only k given, resolving method and n_init", {
    d <- uneven_rings()
    for (kernel in c("heat", "knn")) {
        fit <- kkmeans(d$x, 2, kernel = kernel, seed = 1, progress = FALSE)
        expect_gte(adjusted_rand_index(fitted(fit), d$truth), 0.95)
        expect_gte(ari_r(fitted(fit), d$truth), 0.95)
        expect_identical(predict(fit, d$x), fitted(fit))
        expect_identical(fit$method, "exact")
        expect_identical(fit$kernel, kernel)
        expect_identical(fit$params$method, "exact")
        expect_identical(fit$params$n_init, 10)
        expect_identical(fit$params$neighbors, 10)
        expect_null(fit$params$gamma)  # the graph kernels have no scale
        expect_identical(sort(fit$size), c(150L, 450L))
        expect_identical(fit$input, "points")
        distances <- predict(fit, d$x[1:20, ], type = "distance")
        expect_identical(unname(max.col(-distances, ties.method = "first")), unname(fitted(fit)[1:20]))
    }
})

test_that("method and nstart default to auto: nystrom, and ten restarts up to 10000 rows", {
    d <- uneven_rings(60L, 90L, seed = 2L)
    fit <- kkmeans(d$x, 2, gamma = 0.5, seed = 1, progress = FALSE)
    expect_identical(fit$method, "nystrom")
    expect_identical(fit$params$n_init, 10)
    expect_null(fit$params$neighbors)
    fit <- kkmeans(d$x, 2, kernel = "knn", nstart = 2, seed = 1, progress = FALSE)
    expect_identical(fit$params$n_init, 2)
})

test_that("the graph parameters are library parameters (n_neighbors is neighbors)", {
    d <- uneven_rings(60L, 90L, seed = 3L)
    fit <- kkmeans(d$x, 2, kernel = "heat", n_neighbors = 12, graph = "nndescent", heat_t = 20, heat_rank = 8,
                   heat_normalize = FALSE, seed = 1, progress = FALSE)
    expect_identical(fit$params$neighbors, 12)
    expect_identical(fit$params$graph, "nndescent")
    expect_identical(fit$params$heat_t, 20)
    expect_identical(fit$params$heat_rank, 8)
    expect_identical(fit$params$heat_normalize, "false")
    expect_equal(fastkkm:::NativeModel_feature_dim(fit$native$model), 8)
    expect_error(kkmeans(d$x, 2, kernel = "heat", heat_t = -1, seed = 1), "heat_t", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, kernel = "knn", neighbors = 0, seed = 1), "neighbors",
                 class = "kkmeans_invalid_argument")
})

test_that("sample weights with knn or heat are an invalid argument", {
    d <- uneven_rings(60L, 90L, seed = 4L)
    for (kernel in c("knn", "heat")) {
        expect_error(kkmeans(d$x, 2, kernel = kernel, weights = rep(1, nrow(d$x)), seed = 1), "weights",
                     class = "kkmeans_invalid_argument")
    }
})

test_that("heat reports sums of squares in its feature space; knn, which has none, NA", {
    d <- uneven_rings(seed = 5L)
    heat <- kkmeans(d$x, 2, kernel = "heat", seed = 1, progress = FALSE)
    expect_equal(sum(heat$withinss), heat$tot.withinss, tolerance = 1e-4)
    expect_gt(heat$totss, sum(heat$withinss))
    expect_equal(heat$betweenss, heat$totss - sum(heat$withinss))
    knn <- kkmeans(d$x, 2, kernel = "knn", seed = 1, progress = FALSE)
    expect_true(all(is.na(knn$withinss)))
    expect_true(is.na(knn$totss))
    expect_gt(knn$tot.withinss, 0)
})

test_that("a sparse Matrix graph of two disconnected cliques separates exactly", {
    skip_if_not_installed("Matrix")
    A <- two_cliques(6L, 9L)
    truth <- rep(1:2, c(6L, 9L))
    forms <- list(general = A, symmetric = Matrix::forceSymmetric(A), pattern = methods::as(A, "nMatrix"),
                  triplet = methods::as(A, "TsparseMatrix"))
    for (kernel in c("heat", "knn")) {
        for (form in names(forms)) {
            fit <- kkmeans(forms[[form]], 2, kernel = kernel, seed = 1, progress = FALSE)
            expect_identical(adjusted_rand_index(fitted(fit), truth), 1, info = paste(kernel, form))
            expect_identical(fit$input, "graph")
            expect_identical(c(fit$n, fit$d), c(15L, 15L))
            expect_identical(fit$params$n_init, 10)
            expect_null(fit$params$neighbors)  # the graph is given
            # predict() takes affinity rows: a training node's own row is that node
            expect_identical(predict(fit, A), fitted(fit))
            expect_identical(predict(fit, as.matrix(A)[c(2, 11), ]), fitted(fit)[c(2, 11)])
        }
    }
    # a new node attached to nodes of the second clique joins it
    fit <- kkmeans(A, 2, kernel = "knn", seed = 1, progress = FALSE)
    expect_output(print(summary(fit)), "2 clusters of a graph of 15 nodes")
    new_node <- matrix(c(rep(0, 6), rep(1, 3), rep(0, 6)), nrow = 1)
    expect_identical(unname(predict(fit, new_node)), unname(fitted(fit)[10]))
    expect_equal(dim(predict(fit, new_node, type = "distance")), c(1L, 2L))
    # weighted: a heavy edge pulls nothing across a missing one
    W <- A * 2.5
    expect_identical(adjusted_rand_index(fitted(kkmeans(W, 2, kernel = "heat", seed = 1)), truth), 1)
})

test_that("a graph fit survives saveRDS and keeps its sums of squares", {
    skip_if_not_installed("Matrix")
    A <- two_cliques(5L, 8L)
    fit <- kkmeans(A, 2, kernel = "heat", seed = 1, progress = FALSE)
    expect_equal(sum(fit$withinss), fit$tot.withinss, tolerance = 1e-4)
    back <- unserialize(serialize(fit, NULL))
    expect_identical(predict(back, A), fitted(fit))
})

test_that("a graph that is not one is an error naming what is wrong", {
    skip_if_not_installed("Matrix")
    A <- two_cliques(4L, 5L)
    expect_error(kkmeans(A, 2, seed = 1), "knn", class = "kkmeans_invalid_argument")  # rbf: not a graph kernel
    expect_error(kkmeans(A[, -1], 2, kernel = "knn", seed = 1), "square", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(A, 2, kernel = "knn", weights = rep(1, 9), seed = 1), "weights",
                 class = "kkmeans_invalid_argument")
    asymmetric <- A
    asymmetric[1, 9] <- 1
    expect_error(kkmeans(asymmetric, 2, kernel = "knn", seed = 1), class = "kkmeans_invalid_data")
    isolated <- A
    isolated[1, ] <- 0
    isolated[, 1] <- 0
    expect_error(kkmeans(Matrix::drop0(isolated), 2, kernel = "heat", seed = 1), class = "kkmeans_invalid_data")
    negative <- A
    negative[1, 2] <- negative[2, 1] <- -1
    expect_error(kkmeans(negative, 2, kernel = "knn", seed = 1), class = "kkmeans_invalid_data")
})

test_that("the SWIG layer checks the CSR arrays' lengths before the library reads them", {
    m <- fastkkm:::NativeModel()
    fastkkm:::NativeModel_set_params(m, "k=2 kernel=knn seed=1")
    # a path 0-1-2: indptr 0 1 3 4, indices 1 0 2 1
    indptr <- c(0L, 1L, 3L, 4L)
    indices <- c(1L, 0L, 2L, 1L)
    expect_error(fastkkm:::NativeModel_fit_graph(m, 3, indptr[-4], indices, rep(1, 4)), "indptr has 3 values")
    expect_error(fastkkm:::NativeModel_fit_graph(m, 3, indptr, indices[-4], rep(1, 4)), "indices has 3 values")
    expect_error(fastkkm:::NativeModel_fit_graph(m, 3, indptr, indices, rep(1, 3)), "values has 3 values")
    expect_error(fastkkm:::NativeModel_fit_graph(m, 3, indptr, c(1, 0, 2.5, 1), rep(1, 4)), "whole numbers")
    fastkkm:::NativeModel_fit_graph(m, 3, indptr, as.double(indices), rep(1, 4))
    expect_equal(fastkkm:::NativeModel_n_train(m), 3)
    expect_identical(fastkkm:::NativeModel_get_param(m, "method"), "exact")
})
