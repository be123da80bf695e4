# withinss, totss, betweenss and ifault, as stats::kmeans has them, in the kernel's feature space.

# Three separated blobs in 3-D.
make_blobs <- function(n_per = 30L, seed = 51L) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    truth <- rep(1:3, each = n_per)
    x <- 5 * diag(3)[truth, ] + matrix(rnorm(3L * n_per * 3L, sd = 0.5), ncol = 3)
    colnames(x) <- c("a", "b", "c")
    list(x = x, truth = truth)
}

# stats::kmeans' definitions, from the data and a clustering.
kmeans_ss <- function(x, cluster, k) {
    within <- vapply(seq_len(k), function(j) sum(scale(x[cluster == j, , drop = FALSE], scale = FALSE)^2), 0)
    list(withinss = within, totss = sum(scale(x, scale = FALSE)^2))
}

test_that("with the linear kernel, withinss, totss and betweenss are stats::kmeans' (exact)", {
    b <- make_blobs()
    fit <- kkmeans(b$x, 3, method = "exact", kernel = "linear", nstart = 3, seed = 1)
    expect_equal(adjusted_rand_index(fit$cluster, b$truth), 1)
    ref <- kmeans_ss(b$x, fit$cluster, 3L)
    expect_equal(fit$withinss, ref$withinss, tolerance = 1e-5)
    expect_equal(fit$totss, ref$totss, tolerance = 1e-5)
    expect_equal(fit$betweenss, ref$totss - sum(ref$withinss), tolerance = 1e-5)
    expect_equal(fit$tot.withinss, sum(fit$withinss), tolerance = 1e-5)
    km <- stats::kmeans(b$x, rowsum(b$x, fit$cluster) / fit$size, iter.max = 1)  # started at our clusters
    expect_identical(as.vector(km$cluster), as.vector(fit$cluster))
    expect_equal(fit$withinss, km$withinss, tolerance = 1e-5)
    expect_equal(fit$totss, km$totss, tolerance = 1e-5)
    expect_equal(fit$betweenss, km$betweenss, tolerance = 1e-5)
    expect_output(print(fit), "between_SS / total_SS =")
})

test_that("with weights, they are the weighted sums of squares", {
    b <- make_blobs(seed = 52L)
    set.seed(52)
    w <- runif(nrow(b$x), 0.5, 2)
    fit <- kkmeans(b$x, 3, method = "exact", kernel = "linear", nstart = 3, seed = 1, weights = w)
    wss <- function(rows) {
        m <- colSums(b$x[rows, , drop = FALSE] * w[rows]) / sum(w[rows])
        sum(w[rows] * rowSums(sweep(b$x[rows, , drop = FALSE], 2L, m)^2))
    }
    expect_equal(fit$withinss, vapply(1:3, function(j) wss(which(fit$cluster == j)), 0), tolerance = 1e-5)
    expect_equal(fit$totss, wss(seq_len(nrow(b$x))), tolerance = 1e-5)
})

test_that("with the rbf kernel, they are sums of squared distances to kernel means", {
    d <- make_rings(60L, seed = 53L)
    fit <- kkmeans(d$x, 2, method = "exact", kernel = "rbf", gamma = ring_gamma, nstart = 3, seed = 1)
    K <- exp(-ring_gamma * as.matrix(dist(d$x))^2)
    ss <- function(rows) sum(diag(K)[rows]) - sum(K[rows, rows]) / length(rows)
    expect_equal(fit$withinss, vapply(1:2, function(j) ss(which(fit$cluster == j)), 0), tolerance = 1e-4)
    expect_equal(fit$totss, ss(seq_len(nrow(d$x))), tolerance = 1e-4)
    expect_equal(sum(fit$withinss), fit$tot.withinss, tolerance = 1e-4)
    expect_gt(fit$betweenss, 0)
})

test_that("nystrom, sketch and rff report them in their feature space, adding up to the objective", {
    b <- make_blobs(seed = 54L)
    for (method in c("nystrom", "sketch", "rff")) {
        # kernel_rows = "f32": the sums come from kkm_transform's float32 features, while by
        # default a nystrom fit keeps its kernel rows in half precision (then they differ from
        # the objective by about 0.3% here).
        fit <- kkmeans(b$x, 3, method = method, gamma = 0.05, m = 40, nstart = 3, seed = 1, kernel_rows = "f32")
        expect_identical(fit$ifault, 0L, label = method)
        expect_length(fit$withinss, 3L)
        expect_true(all(fit$withinss >= 0), label = method)
        expect_equal(sum(fit$withinss), fit$tot.withinss, tolerance = 1e-5, label = method)
        default <- kkmeans(b$x, 3, method = method, gamma = 0.05, m = 40, nstart = 3, seed = 1)
        expect_equal(sum(default$withinss), default$tot.withinss, tolerance = 1e-2, label = method)
        expect_equal(fit$betweenss, fit$totss - sum(fit$withinss), label = method)
        expect_gt(fit$betweenss / fit$totss, 0.5)
        expect_identical(dim(fit$feature_centers)[1L], 3L)
    }
})

test_that("ifault is 2 when max_iter was reached, 0 when the fit converged", {
    d <- make_rings(150L, seed = 55L)
    converged <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, nstart = 3, seed = 1)
    expect_identical(converged$ifault, 0L)
    expect_lt(converged$iter, 100L)  # the default max_iter
    stopped <- kkmeans(d$x, 6, method = "exact", gamma = ring_gamma, init = "random", max_iter = 1, seed = 2)
    expect_identical(stopped$iter, 1L)
    expect_identical(stopped$ifault, 2L)
    expect_output(print(stopped), "max_iter reached: ifault = 2")
})

test_that("minibatch (no feature map) reports NA sums of squares", {
    b <- make_blobs(seed = 56L)
    fit <- kkmeans(b$x, 3, method = "minibatch", seed = 1)
    expect_true(is.na(fit$totss) && all(is.na(fit$withinss)) && is.na(fit$betweenss))
})
