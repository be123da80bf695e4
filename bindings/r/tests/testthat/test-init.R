# Starting partitions (centers = a matrix, init = a clustering), algorithm = as stats::kmeans,
# and the library's 0-based places in error messages counted from 1 as R does.

# Three blobs in 2-D around (0, 0), (6, 0) and (0, 6), 40 rows each.
make_blobs <- function(seed = 1L) {
    set.seed(seed)
    centres <- rbind(c(0, 0), c(6, 0), c(0, 6))
    truth <- rep(1:3, each = 40)
    list(x = centres[truth, ] + matrix(rnorm(240, sd = 0.5), ncol = 2), truth = truth, centres = centres)
}

test_that("centers = a matrix starts Lloyd there: the same clusters as stats::kmeans(algorithm = \"Lloyd\")", {
    set.seed(3)
    x <- matrix(runif(400), ncol = 2)  # uniform data: each start ends in its own local optimum
    for (s in 1:3) {
        cen <- x[sample(200, 4), ]
        km <- stats::kmeans(x, cen, algorithm = "Lloyd", iter.max = 100)
        fit <- kkmeans(x, cen, method = "exact", kernel = "linear", algorithm = "Lloyd", iter.max = 100)
        expect_identical(unname(fit$cluster), unname(km$cluster))
        expect_equal(fit$tot.withinss, km$tot.withinss, tolerance = 1e-4)
        expect_identical(fit$params$n_init, 1)  # nstart defaults to 1 with given centres
    }
})

test_that("clusters are numbered as the rows of centers, for exact and nystrom", {
    b <- make_blobs(2L)
    order <- c(3L, 1L, 2L)
    for (method in c("exact", "nystrom")) {
        fit <- kkmeans(b$x, b$centres[order, ], method = method, kernel = "rbf", gamma = 0.1, m = 60, seed = 1)
        # blob order[j] starts (and stays) in cluster j
        expect_identical(unname(fit$cluster), match(b$truth, order), label = method)
    }
    df <- data.frame(x2 = b$centres[order, 2], x1 = b$centres[order, 1])  # columns matched by name
    colnames(b$x) <- c("x1", "x2")
    fit <- kkmeans(b$x, df, method = "exact", kernel = "linear")
    expect_identical(unname(fit$cluster), match(b$truth, order))
})

test_that("bad initial centres are errors naming rows and columns from 1", {
    b <- make_blobs(3L)
    expect_error(kkmeans(b$x, cbind(b$centres, 1)), "centers has 3 columns but x has 2",
                 class = "kkmeans_invalid_argument")
    cen <- b$centres
    cen[2, 1] <- NA
    expect_error(kkmeans(b$x, cen), "row 2, column 1", class = "kkmeans_invalid_data")
    expect_error(kkmeans(b$x, rbind(c(1, 1), c(0, 0), c(1, 1))), "rows 1 and 3 are the same point",
                 class = "kkmeans_invalid_argument")
    # refused by the library: the message names R's arguments, not the C functions
    err <- tryCatch(kkmeans(b$x, b$centres, gamma = "search"), error = function(e) e)
    expect_s3_class(err, "kkmeans_invalid_argument")
    expect_match(conditionMessage(err), "centers = a matrix")
    expect_false(grepl("kkm_set_init", conditionMessage(err)))
    expect_error(kkmeans(b$x, b$centres, init = b$truth), "not both", class = "kkmeans_invalid_argument")
})

test_that("init = a clustering (1..k or a factor) starts there; k defaults to its number of clusters", {
    set.seed(3)
    x <- matrix(runif(400), ncol = 2)
    start <- sample(1:3, nrow(x), replace = TRUE)
    # one Lloyd iteration from the start: every row to the nearest mean of the start's clusters
    fit <- kkmeans(x, init = start, method = "exact", kernel = "linear", iter.max = 1)
    means <- rowsum(x, start) / as.vector(table(start))
    nearest <- apply(x, 1L, function(r) which.min(colSums((t(means) - r)^2)))
    expect_identical(unname(fit$cluster), nearest)
    expect_identical(fit$params$k, 3)
    expect_identical(fit$params$n_init, 1)
    # clusters keep the start's numbers: blobs started mostly right end exactly right
    b <- make_blobs(4L)
    start <- b$truth
    start[seq(1, 120, by = 3)] <- sample(1:3, 40, replace = TRUE)
    fit <- kkmeans(b$x, 3, init = start, method = "exact", gamma = 0.1)
    expect_identical(unname(fit$cluster), b$truth)
    # a factor: its levels are the clusters, in level order ("a" is cluster 1)
    d <- make_rings(100L, seed = 5L)
    fit <- kkmeans(d$x, init = factor(c("b", "a")[d$truth]), method = "exact", gamma = ring_gamma)
    expect_identical(unname(fit$cluster), 3L - d$truth)
    # init = "random" is still the library's seeding
    expect_identical(kkmeans(d$x, 2, init = "random", seed = 1)$params$init, "random")
})

test_that("a bad init is an error naming its element from 1", {
    d <- make_rings(50L, seed = 6L)
    labels <- d$truth
    labels[7] <- 3L
    expect_error(kkmeans(d$x, 2, init = labels), "init\\[7\\] = 3 is not a cluster in 1..2",
                 class = "kkmeans_invalid_argument")
    labels[7] <- NA
    expect_error(kkmeans(d$x, 2, init = labels), "init\\[7\\]", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, init = d$truth[-1]), "init has 99 values but x has 100 rows",
                 class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, "auto", init = d$truth), "init =", class = "kkmeans_invalid_argument")
    # rows dropped by na.action are dropped from init too
    x <- d$x
    x[10, 1] <- NA
    fit <- kkmeans(x, init = d$truth, method = "exact", gamma = ring_gamma, na.action = na.omit)
    expect_identical(unname(fit$cluster), d$truth[-10])
})

test_that("algorithm = as stats::kmeans: Hartigan-Wong is refine = hartigan, Lloyd and Forgy plain Lloyd", {
    set.seed(7)
    x <- matrix(runif(400), ncol = 2)
    cen <- x[sample(200, 4), ]
    hw <- kkmeans(x, cen, method = "exact", kernel = "linear", algorithm = "Hartigan-Wong")
    lloyd <- kkmeans(x, cen, method = "exact", kernel = "linear", algorithm = "Lloyd")
    expect_identical(hw$params$refine, "hartigan")
    expect_identical(lloyd$params$refine, "none")
    expect_identical(kkmeans(x, cen, method = "exact", kernel = "linear", algorithm = "Forgy")$params$refine, "none")
    expect_identical(kkmeans(x, cen, method = "exact", kernel = "linear", algorithm = "Hart")$params$refine,
                     "hartigan")
    # Hartigan's transfers start where Lloyd stops and never raise the objective
    expect_lte(hw$tot.withinss, lloyd$tot.withinss * (1 + 1e-6))
    expect_error(kkmeans(x, 4, algorithm = "MacQueen"), "minibatch", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(x, 4, algorithm = "Elkan"), "algorithm must be one of", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(x, 4, algorithm = "Lloyd", refine = "hartigan"), "not both",
                 class = "kkmeans_invalid_argument")
})

test_that("the library's 0-based places read 1-based: weights, rows and columns, graph nodes, kernel entries", {
    d <- make_rings(50L, seed = 8L)
    w <- rep(1, nrow(d$x))
    w[3] <- -1
    err <- tryCatch(kkmeans(d$x, 2, weights = w), error = function(e) e)
    expect_s3_class(err, "kkmeans_invalid_data")
    expect_match(conditionMessage(err), "weights[3] = -1", fixed = TRUE)
    w[3] <- NaN  # and a NaN reads as R writes it
    expect_error(kkmeans(d$x, 2, weights = w), "weights[3] = NaN", fixed = TRUE)
    x <- d$x
    x[5, 2] <- 1e39  # finite for R, beyond float32: found by the library
    err <- tryCatch(kkmeans(x, 2), error = function(e) e)
    expect_match(conditionMessage(err), "row 5, column 2", fixed = TRUE)
    expect_false(grepl("0-based", conditionMessage(err)))
    K <- tcrossprod(d$x[1:6, ])
    K[3, 3] <- -1
    expect_error(kkmeans(K, 2, method = "exact", kernel = "precomputed"), "K[3, 3] = -1 < 0 (row 3)", fixed = TRUE,
                 class = "kkmeans_invalid_data")
    # the translation itself
    f <- fastkkm:::one_based_message
    expect_identical(f("X has a non-finite value (nan) at row 0, column 4 (0-based)"),
                     "X has a non-finite value (nan) at row 1, column 5")
    expect_identical(f("starting label labels[2]=3 is outside [0, k) for k=3"),
                     "starting label labels[3]=4 is outside [1, k] for k=3")
    expect_identical(f("graph: values[7]=-1 (entry 2, 0) is not"), "graph: values[8]=-1 (entry 3, 1) is not")
    expect_identical(f("A[0,3]=1 but A[3,0]=0.5; n=5 rows, 3 columns, k=2"), "A[1,4]=1 but A[4,1]=0.5; n=5 rows, 3 columns, k=2")
    expect_identical(f("indices[4]=9 (row 1) is outside [0, n=9)"), "indices[5]=10 (row 2) is outside [1, n=9]")
})

test_that("graph errors name nodes from 1", {
    skip_if_not_installed("Matrix")
    # a path 1-2-3 plus node 4 without edges
    A <- Matrix::sparseMatrix(i = c(1, 2, 2, 3), j = c(2, 1, 3, 2), x = 1, dims = c(4, 4))
    expect_error(kkmeans(A, 2, kernel = "knn"), "node 4 has no edge", class = "kkmeans_invalid_data")
    B <- Matrix::sparseMatrix(i = c(1, 2, 2, 3, 3, 4, 4, 1), j = c(2, 1, 3, 2, 4, 3, 1, 4),
                              x = c(1, 1, 1, 1, 1, 1, 1, 2), dims = c(4, 4))
    expect_error(kkmeans(B, 2, kernel = "knn"), "A\\[(1,4|4,1)\\]", class = "kkmeans_invalid_data")
})
