# gamma = "search" and k = "auto": the fit chooses them, object$search holds the scan.

test_that("rings with neither gamma nor k given: the search finds the two rings", {
    d <- make_rings(250L, outer = 3, seed = 31L)
    fit <- kkmeans(d$x, "auto", method = "exact", gamma = "search", seed = 1)
    expect_length(fit$size, 2L)
    expect_identical(fit$params$k, 2)
    expect_type(fit$params$gamma, "double")
    expect_gt(fit$params$gamma, 0)
    expect_gte(adjusted_rand_index(fit$cluster, d$truth), 0.95)
    s <- fit$search
    expect_s3_class(s, "data.frame")
    expect_identical(names(s), c("gamma", "k", "score", "criterion"))
    expect_gt(nrow(s), 0L)
    expect_type(s$k, "integer")
    expect_true(all(s$k >= 2L & s$k <= 10L))
    # k by stability over the whole grid, then gamma by MATR (the default) at k = 2
    expect_true(all(s$criterion == "stability" | (s$criterion == "matr" & s$k == 2L)))
    expect_true(any(s$criterion == "matr"))
    expect_true(all(is.finite(s$score)))
    expect_true(any(s$gamma == fit$params$gamma & s$k == 2L))
    expect_output(print(fit), "Chosen by search: gamma=.* k=2 \\([0-9]+ candidates scored by stability and matr")
})

test_that("k = and the library's aliases stand for centers; search parameters pass through", {
    d <- make_rings(120L, outer = 3, seed = 32L)
    fit <- kkmeans(d$x, k = 2, method = "exact", gamma = "search", search_criterion = "matr", search_size = 200,
                   seed = 2)
    expect_length(fit$size, 2L)
    expect_gt(nrow(fit$search), 0L)
    expect_true(all(fit$search$criterion == "matr"))
    expect_true(all(fit$search$k == 2L))
    expect_true(all(fit$search$score > 0))
    expect_identical(fit$params$search_criterion, "matr")
    expect_identical(fit$params$search_size, 200)
    expect_output(print(fit), "Chosen by search: gamma=")
})

test_that("k = \"auto\" finds the number of well-separated blobs within k_min..k_max", {
    set.seed(5)
    centres <- rbind(c(0, 0), c(10, 10), c(20, 0))
    truth <- rep(1:3, each = 100L)
    x <- centres[truth, ] + matrix(rnorm(600L, sd = 0.5), ncol = 2L)
    fit <- kkmeans(x, "auto", method = "exact", k_min = 2, k_max = 6, seed = 3)
    expect_length(fit$size, 3L)
    expect_equal(adjusted_rand_index(fit$cluster, truth), 1)
    expect_true(all(fit$search$k >= 2L & fit$search$k <= 6L))
    expect_identical(attr(fit$search, "searched"), "k")
    expect_output(print(fit), "Chosen by search: k=3 ")
})

test_that("without a search, object$search has no rows and print() says nothing of one", {
    d <- make_rings(100L, seed = 33L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    expect_s3_class(fit$search, "data.frame")
    expect_identical(nrow(fit$search), 0L)
    expect_identical(names(fit$search), c("gamma", "k", "score", "criterion"))
    out <- capture.output(print(fit))
    expect_false(any(grepl("search", out, fixed = TRUE) & grepl("Chosen", out, fixed = TRUE)))
})

test_that("the scan survives saveRDS/readRDS with the object", {
    d <- make_rings(120L, outer = 3, seed = 34L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = "search", search_size = 200, seed = 4)
    path <- tempfile(fileext = ".rds")
    on.exit(unlink(path))
    saveRDS(fit, path)
    back <- readRDS(path)
    expect_identical(back$search, fit$search)
    expect_identical(predict(back, d$x), fit$cluster)
})

test_that("bad search values are errors naming the parameter", {
    d <- make_rings(60L, seed = 35L)
    expect_error(kkmeans(d$x, "many"), "centers", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, k = "many"), "centers", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x), "centers", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, gamma = "searching"), "gamma", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, "auto", k_min = 1), "k_min", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, gamma = "search", search_criterion = "bogus"), "search_criterion",
                 class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, gamma = "search", search_size = 5), "search_size",
                 class = "kkmeans_invalid_argument")
    expect_error(kkmeans(d$x, 2, k = "auto"), "centers", class = "kkmeans_invalid_argument")
})
