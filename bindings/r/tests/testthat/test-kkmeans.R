# kkmeans(): the fit, its result object and its parameters.

test_that("rbf kernel k-means separates two rings (exact and nystrom)", {
    d <- make_rings(150L, seed = 11L)
    exact <- kkmeans(d$x, 2, method = "exact", kernel = "rbf", gamma = ring_gamma, nstart = 5, seed = 1)
    expect_gte(ari_r(exact$cluster, d$truth), 0.95)
    expect_gte(adjusted_rand_index(exact$cluster, d$truth), 0.95)
    nys <- kkmeans(d$x, 2, method = "nystrom", kernel = "rbf", gamma = ring_gamma, m = 100, nstart = 5, seed = 2)
    expect_gte(adjusted_rand_index(nys$cluster, d$truth), 0.95)
})

test_that("the linear kernel does not separate the rings (the kernel matters)", {
    d <- make_rings(150L, seed = 12L)
    fit <- kkmeans(d$x, 2, method = "exact", kernel = "linear", nstart = 5, seed = 1)
    expect_lt(adjusted_rand_index(fit$cluster, d$truth), 0.5)
})

test_that("the result has kmeans-like fields that agree with each other", {
    d <- make_rings(100L, seed = 13L)
    fit <- kkmeans(d$x, 3, method = "exact", gamma = ring_gamma, seed = 3)
    expect_s3_class(fit, "kkmeans")
    expect_type(fit$cluster, "integer")
    expect_length(fit$cluster, nrow(d$x))
    expect_true(all(fit$cluster %in% 1:3))
    expect_identical(fit$size, tabulate(fit$cluster, 3L))
    expect_true(is.finite(fit$tot.withinss) && fit$tot.withinss > 0)
    expect_gte(fit$iter, 1L)
    expect_identical(fit$method, "exact")
    expect_identical(fit$kernel, "rbf")
    expect_identical(fit$params$k, 3)
    expect_equal(fit$params$gamma, ring_gamma)
    expect_identical(fit$params$seed, 3)
    expect_identical(fitted(fit), fit$cluster)
    expect_error(fitted(fit, method = "centers"), "no cluster centres")
})

test_that("gamma = auto is reported resolved, as a number", {
    d <- make_rings(100L, seed = 14L)
    fit <- kkmeans(d$x, 2, method = "nystrom", m = 50, seed = 4)
    expect_type(fit$params$gamma, "double")
    expect_gt(fit$params$gamma, 0)
    expect_identical(fit$params$m, 50)
})

test_that("extra named arguments become library parameters (aliases included)", {
    expect_identical(fastkkm:::format_params(list(gamma = 0.5, seed = 1, flag = TRUE, off = FALSE, m = 1e5, s = "rls")),
                     "gamma=0.5 seed=1 flag=true off=false m=100000 s=rls")
    d <- make_rings(100L, seed = 15L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, nstart = 3, iter.max = 7, random_state = 9)
    expect_identical(fit$params$n_init, 3)
    expect_identical(fit$params$max_iter, 7)
    expect_identical(fit$params$seed, 9)
    expect_lte(fit$iter, 7L)
})

test_that("abbreviations of method and kernel are library parameters (m is not method)", {
    d <- make_rings(100L, seed = 25L)
    fit <- kkmeans(d$x, 2, m = 30, seed = 1)
    expect_identical(fit$method, "nystrom")
    expect_identical(fit$params$m, 30)
    fit <- kkmeans(d$x, 2, method = "exact", m = 30, seed = 1)
    expect_identical(fit$method, "exact")
    expect_error(kkmeans(d$x, 2, k = 3), "centers")
})

test_that("set.seed() makes fits without a seed reproducible", {
    d <- make_rings(100L, seed = 16L)
    set.seed(42)
    a <- kkmeans(d$x, 4, method = "nystrom", m = 40)
    set.seed(42)
    b <- kkmeans(d$x, 4, method = "nystrom", m = 40)
    expect_identical(a$params$seed, b$params$seed)
    expect_identical(a$cluster, b$cluster)
})

test_that("a bad parameter is an R error carrying the library's message", {
    d <- make_rings(50L, seed = 17L)
    expect_error(kkmeans(d$x, 2, bogus = 1), "bogus", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, method = "exactly"), "exactly", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 0), "k", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, gamma = -1), "gamma", class = "kkmeans_error")
    err <- tryCatch(kkmeans(d$x, 2, bogus = 1), error = function(e) e)
    expect_false(grepl("SWIG|kkm_status", conditionMessage(err)))
    expect_identical(err$status, 1L)
    expect_error(kkmeans(d$x, 2, "exact"), "must be named")
    expect_error(kkmeans(d$x, 2, k = 3), "centers")
    expect_error(kkmeans(d$x, nrow(d$x) + 1), "k", class = "kkmeans_error")
})

test_that("a data.frame gives the same clustering as the matrix", {
    d <- make_rings(150L, seed = 18L)
    df <- as.data.frame(d$x)
    from_df <- kkmeans(df, 2, method = "exact", gamma = ring_gamma, nstart = 5, seed = 5)
    from_matrix <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, nstart = 5, seed = 5)
    expect_identical(unname(from_df$cluster), unname(from_matrix$cluster))
    expect_gte(adjusted_rand_index(from_df$cluster, d$truth), 0.95)
    expect_identical(predict(from_df, df), predict(from_matrix, d$x))
    df$label <- letters[1:2]
    expect_error(kkmeans(df, 2), "label", class = "kkmeans_invalid_argument")
})

test_that("column-major R data reach the library as rows (an asymmetric check)", {
    # Three well separated blobs in 3-D whose rows differ only in one column: a transposed
    # or column-major read would mix the coordinates and fail to recover the blobs.
    set.seed(19)
    centres <- rbind(c(0, 0, 10), c(0, 10, 0), c(10, 0, 0))
    truth <- rep(1:3, each = 40)
    x <- centres[truth, ] + matrix(rnorm(360, sd = 0.3), ncol = 3)
    fit <- kkmeans(x, 3, method = "exact", kernel = "rbf", gamma = 0.05, seed = 1)
    expect_equal(adjusted_rand_index(fit$cluster, truth), 1)
})

test_that("missing and non-finite values are errors", {
    d <- make_rings(50L, seed = 20L)
    x <- d$x
    x[7, 2] <- NA
    expect_error(kkmeans(x, 2), "row 7, column 2", class = "kkmeans_invalid_data")
    x[7, 2] <- Inf
    expect_error(kkmeans(x, 2), "non-finite", class = "kkmeans_invalid_data")
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    y <- d$x[1:5, ]
    y[3, 1] <- NaN
    expect_error(predict(fit, y), "row 3, column 1", class = "kkmeans_invalid_data")
    expect_error(kkmeans("abc", 2), "numeric")
    expect_error(kkmeans(d$x, "two"), "number of clusters")
})

test_that("weights are passed on: cluster sizes are weight sums", {
    d <- make_rings(150L, seed = 21L)
    set.seed(21)
    w <- runif(300, 0.5, 1.5)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, nstart = 5, seed = 1, weights = w)
    expect_gte(adjusted_rand_index(fit$cluster, d$truth), 0.95)
    expect_equal(sort(fit$size), sort(tapply(w, fit$cluster, sum)), ignore_attr = TRUE)
    expect_error(kkmeans(d$x, 2, weights = 1:3), "weights")
})

test_that("print and summary describe the fit", {
    d <- make_rings(50L, seed = 22L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    expect_output(print(fit), "Kernel k-means clustering with 2 clusters of sizes")
    expect_output(print(fit), "gamma=0.4")
    s <- summary(fit)
    expect_s3_class(s, "summary.kkmeans")
    expect_identical(s$n, 100L)
    expect_output(print(s), "2 clusters of 100 points in 2 dimensions")
})

test_that("plot draws 2-D data, wider data on principal components, and sizes without data", {
    d <- make_rings(50L, seed = 23L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    file <- tempfile(fileext = ".pdf")
    grDevices::pdf(file)
    labels <- plot(fit, d$x)
    grDevices::dev.off()
    expect_gt(file.size(file), 0)
    expect_identical(labels, fitted(fit))

    # d = 5: the first two principal components, into a png device.
    set.seed(23)
    truth <- rep(1:3, each = 30)
    x5 <- matrix(rnorm(90 * 5, sd = 0.3), ncol = 5) + 4 * diag(5)[truth, ]
    fit5 <- kkmeans(x5, 3, method = "exact", gamma = 0.1, seed = 1)
    png_file <- tempfile(fileext = ".png")
    grDevices::png(png_file)
    labels5 <- plot(fit5, x5)
    grDevices::dev.off()
    expect_gt(file.size(png_file), 0)
    expect_identical(labels5, fitted(fit5))
    coords <- fastkkm:::plot_coordinates(x5)
    expect_match(coords$xlab, "^PC1 \\([0-9]+% of the variance of the 5 columns\\)$")
    expect_equal(abs(unname(coords$xy)), abs(unname(prcomp(x5)$x[, 1:2])), tolerance = 1e-8)
    expect_error(plot(fit5, x5[, 1:4]), "4 columns", class = "kkmeans_invalid_argument")

    # Without data (the object keeps none): the cluster sizes, no error.
    grDevices::pdf(NULL)
    expect_null(plot(fit))
    expect_null(plot(fit5))
    grDevices::dev.off()
})

test_that("adjusted_rand_index and normalized_mutual_info agree with R", {
    set.seed(24)
    a <- sample(1:4, 300, replace = TRUE)
    b <- ifelse(runif(300) < 0.7, a, sample(1:4, 300, replace = TRUE))
    expect_equal(adjusted_rand_index(a, b), ari_r(a, b), tolerance = 1e-9)
    expect_equal(adjusted_rand_index(a, a), 1)
    expect_equal(adjusted_rand_index(factor(letters[a]), a), 1)
    expect_equal(normalized_mutual_info(a, a), 1)
    expect_error(adjusted_rand_index(1:3, 1:4), "b has 4 values", class = "kkmeans_invalid_argument")
})

test_that("the maintainer is the project's, with a real address (no placeholder)", {
    desc <- utils::packageDescription("fastkkm")
    expect_identical(desc$Maintainer, "The kkmeans authors <fastkkm@users.noreply.github.com>")
    expect_false(grepl("\\.example\\b|placeholder|a-seed", desc$Maintainer))
})
