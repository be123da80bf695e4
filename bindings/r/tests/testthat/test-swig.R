# The SWIG layer itself (internal): the typemaps of bindings/swig/r.i and its %exception.

fit_native <- function(x, params) {
    m <- fastkkm:::NativeModel()
    fastkkm:::NativeModel_set_params(m, params)
    fastkkm:::NativeModel_fit_f64(m, as.vector(t(x)), nrow(x), ncol(x))
    m
}

test_that("output arrays come back as fresh R vectors of the requested length", {
    d <- make_rings(60L, seed = 41L)
    m <- fit_native(d$x, "k=2 method=exact kernel=rbf gamma=0.5 seed=1")
    labels <- fastkkm:::NativeModel_labels(m, 120)
    expect_type(labels, "integer")
    expect_length(labels, 120L)
    expect_true(all(labels %in% 0:1))
    sizes <- fastkkm:::NativeModel_cluster_sizes(m, 2)
    expect_type(sizes, "double")
    expect_equal(sum(sizes), 120)
    both <- fastkkm:::NativeModel_assign_distances_f64(m, as.vector(t(d$x)), 120, 2, 120, 120)
    expect_named(both, c("labels", "distances"))
    expect_identical(both$labels, labels)
    expect_true(all(both$distances >= 0))
    expect_equal(sum(both$distances), fastkkm:::NativeModel_objective(m), tolerance = 1e-4)
    expect_error(fastkkm:::NativeModel_labels(m, 10), "labels|len|small|120")  # too short: library error
    expect_error(fastkkm:::NativeModel_labels(m, -1), "non-negative")
})

test_that("inputs are read in place and checked against n x d", {
    d <- make_rings(60L, seed = 42L)
    m <- fit_native(d$x, "k=2 method=exact kernel=rbf gamma=0.5 seed=1")
    data <- as.vector(t(d$x))
    before <- data + 0
    fastkkm:::NativeModel_assign_f64(m, data, 120, 2, 120)
    expect_identical(data, before)
    expect_error(fastkkm:::NativeModel_assign_f64(m, data[-1], 120, 2, 120), "data has 239 values")
    expect_error(fastkkm:::NativeModel_fit_f64(m, "text", 1, 1), "numeric")
    # integer input is coerced to double by the R side of the wrapper
    ints <- fastkkm:::NativeModel_assign_f64(m, as.integer(round(data)), 120, 2, 120)
    expect_length(ints, 120L)
})

test_that("the float32 entry points convert R doubles and agree with the f64 ones", {
    d <- make_rings(60L, seed = 43L)
    data <- as.vector(t(d$x))
    m64 <- fit_native(d$x, "k=2 method=exact kernel=rbf gamma=0.5 seed=1")
    m32 <- fastkkm:::NativeModel()
    fastkkm:::NativeModel_set_params(m32, "k=2 method=exact kernel=rbf gamma=0.5 seed=1")
    fastkkm:::NativeModel_fit(m32, data, 120, 2)
    expect_equal(adjusted_rand_index(fastkkm:::NativeModel_labels(m32, 120), fastkkm:::NativeModel_labels(m64, 120)), 1)
    expect_identical(fastkkm:::NativeModel_assign(m32, data, 120, 2, 120), fastkkm:::NativeModel_labels(m32, 120))
})

test_that("the model buffer crosses as a raw vector", {
    d <- make_rings(60L, seed = 44L)
    m <- fit_native(d$x, "k=2 method=nystrom m=30 kernel=rbf gamma=0.5 seed=1")
    size <- fastkkm:::NativeModel_save_size(m)
    bytes <- fastkkm:::NativeModel_save_buffer(m, size)
    expect_type(bytes, "raw")
    expect_length(bytes, size)
    expect_identical(rawToChar(bytes[1:7]), "KKMEANS")
    m2 <- fastkkm:::NativeModel()
    fastkkm:::NativeModel_load_buffer(m2, bytes)
    data <- as.vector(t(d$x))
    expect_identical(fastkkm:::NativeModel_assign_f64(m2, data, 120, 2, 120),
                     fastkkm:::NativeModel_assign_f64(m, data, 120, 2, 120))
    expect_error(fastkkm:::NativeModel_save_buffer(m, size - 1), "too small")
})

test_that("library failures are R errors with the status and the message", {
    m <- fastkkm:::NativeModel()
    expect_error(fastkkm:::NativeModel_set_param(m, "bogus", "1"), "SWIG:ValueError \\[kkm_status=1\\] .*bogus")
    expect_error(fastkkm:::NativeModel_k(m), "\\[kkm_status=3\\]")  # not fitted
    expect_error(fastkkm:::native_call(fastkkm:::NativeModel_k(m)), class = "kkmeans_not_fitted")
    expect_match(kkmeans_version(), "^[0-9]+\\.[0-9]+\\.[0-9]+$")
})
