# predict(), persistence through saveRDS/readRDS, and the native model's life cycle.

test_that("predict on the training data equals the training labels", {
    d <- make_rings(120L, seed = 31L)
    for (method in c("exact", "nystrom")) {
        fit <- kkmeans(d$x, 2, method = method, gamma = ring_gamma, m = 80, seed = 1)
        expect_identical(predict(fit, d$x), fitted(fit))
        expect_identical(predict(fit), fitted(fit))
    }
})

test_that("predict assigns new points of the same rings to their ring", {
    d <- make_rings(150L, seed = 32L)
    fresh <- make_rings(60L, seed = 33L)
    fit <- kkmeans(d$x, 2, method = "nystrom", gamma = ring_gamma, m = 100, nstart = 5, seed = 1)
    expect_gte(adjusted_rand_index(fitted(fit), d$truth), 0.95)
    expect_gte(adjusted_rand_index(predict(fit, fresh$x), fresh$truth), 0.95)
    one <- predict(fit, fresh$x[5, , drop = FALSE])
    expect_identical(one, predict(fit, fresh$x)[5])
})

test_that("predict(type = \"distance\") has its row minima at predict's clusters, for every method", {
    d <- make_rings(120L, seed = 40L)
    fresh <- make_rings(50L, seed = 41L)
    rownames(fresh$x) <- paste0("r", seq_len(nrow(fresh$x)))
    for (method in c("exact", "minibatch", "nystrom", "sketch", "rff")) {
        fit <- kkmeans(d$x, 2, method = method, gamma = ring_gamma, m = 80, nstart = 3, seed = 1)
        D <- predict(fit, fresh$x, type = "distance")
        expect_identical(dim(D), c(nrow(fresh$x), 2L), label = method)
        expect_identical(dimnames(D), list(rownames(fresh$x), c("1", "2")), label = method)
        expect_true(all(is.finite(D) & D >= 0), label = method)
        expect_identical(apply(D, 1L, which.min), predict(fit, fresh$x), label = method)
    }
})

test_that("predict(type = \"distance\") of exact with a linear kernel is Euclidean to the cluster means", {
    d <- make_rings(100L, seed = 42L)
    fresh <- make_rings(40L, seed = 43L)
    fit <- kkmeans(d$x, 3, method = "exact", kernel = "linear", nstart = 3, seed = 1)
    means <- rowsum(d$x, fit$cluster) / as.vector(table(fit$cluster))
    euclid <- outer(seq_len(nrow(fresh$x)), 1:3,
                    Vectorize(function(i, j) sum((fresh$x[i, ] - means[j, ])^2)))
    D <- predict(fit, fresh$x, type = "distance")
    expect_equal(unname(D), euclid, tolerance = 1e-4)
    expect_identical(unname(max.col(-euclid, ties.method = "first")), unname(predict(fit, fresh$x)))
})

test_that("predict(type = \"distance\") with kernel = \"precomputed\" needs k(x, x) for exact", {
    d <- make_rings(60L, seed = 44L)
    K <- exp(-ring_gamma * as.matrix(dist(d$x))^2)
    fit <- kkmeans(K, 2, method = "exact", kernel = "precomputed", seed = 1)
    expect_identical(unname(predict(fit, K[1:5, ])), unname(fitted(fit)[1:5]))
    expect_error(predict(fit, K[1:5, ], type = "distance"), "kernel=precomputed",
                 class = "kkmeans_invalid_argument")
})

test_that("predict matches columns by name and checks their number", {
    d <- make_rings(80L, seed = 34L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    swapped <- d$x[, c("x2", "x1")]
    expect_identical(predict(fit, swapped), fitted(fit))
    expect_identical(predict(fit, as.data.frame(d$x)), fitted(fit))
    expect_error(predict(fit, cbind(d$x, 1)), "3 columns", class = "kkmeans_invalid_argument")
})

test_that("saveRDS/readRDS keeps a model that predicts identically", {
    d <- make_rings(120L, seed = 35L)
    fresh <- make_rings(40L, seed = 36L)
    fit <- kkmeans(d$x, 2, method = "nystrom", gamma = ring_gamma, m = 80, seed = 1)
    expect_type(fit$model_buffer, "raw")
    file <- tempfile(fileext = ".rds")
    saveRDS(fit, file)
    back <- readRDS(file)
    expect_true(fastkkm:::native_is_null(back$native$model))  # a restored externalptr is NULL
    expect_identical(predict(back, fresh$x), predict(fit, fresh$x))
    expect_false(fastkkm:::native_is_null(back$native$model))  # rebuilt once, then cached
    expect_identical(predict(back, d$x), fitted(fit))
    expect_identical(back$cluster, fit$cluster)
    expect_identical(back$params, fit$params)
})

test_that("an exact model survives serialize/unserialize too", {
    d <- make_rings(80L, seed = 37L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    back <- unserialize(serialize(fit, NULL))
    expect_identical(predict(back, d$x), fitted(fit))
})

test_that("the external pointer never dangles", {
    d <- make_rings(80L, seed = 38L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    copy <- fit                   # shares the environment, hence the native model
    fastkkm:::release_native(fit)  # kkm_destroy now; the pointer is cleared, not left dangling
    expect_true(fastkkm:::native_is_null(copy$native$model))
    fastkkm:::release_native(fit)  # releasing twice is harmless
    expect_identical(predict(copy, d$x), fitted(fit))  # rebuilt from the model buffer

    # A NULL pointer reaching the SWIG layer is an R error, never a crash.
    model <- fit$native$model
    fastkkm:::delete_NativeModel(model)
    expect_error(fastkkm:::NativeModel_k(model))

    # Without a model buffer a released model is an error, not a crash.
    broken <- fit
    broken$model_buffer <- NULL
    fastkkm:::release_native(broken)
    expect_error(predict(broken, d$x), "no model buffer", class = "kkmeans_not_fitted")

    # Dropping every reference lets the finalizer run kkm_destroy; other models live on.
    keep <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 2)
    for (i in 1:5) local(kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = i))
    rm(fit, copy, broken)
    invisible(gc())
    expect_identical(predict(keep, d$x), fitted(keep))
})

test_that("a corrupted model buffer is refused with the library's message", {
    d <- make_rings(60L, seed = 39L)
    fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)
    bad <- fit
    bad$native <- new.env()
    buffer <- bad$model_buffer
    buffer[length(buffer) %/% 2L] <- as.raw(bitwXor(as.integer(buffer[length(buffer) %/% 2L]), 0xFFL))
    bad$model_buffer <- buffer
    expect_error(predict(bad, d$x), class = "kkmeans_format")
    bad$model_buffer <- as.raw(1:10)
    expect_error(predict(bad, d$x), class = "kkmeans_error")
})
