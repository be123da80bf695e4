# kkmeans_file(): a fit of a raw float32 file mapped by the library (kkm_fit_file).

# x as the file kkm_fit_file reads: row-major little-endian float32.
write_f32 <- function(x, path) writeBin(as.vector(t(x)), path, size = 4L, endian = "little")

file_blobs <- function(seed) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    centres <- rbind(c(0, 0, 0), c(5, 0, 1), c(0, 5, -1))
    truth <- sample(rep(1:3, 100))
    list(x = centres[truth, ] + matrix(rnorm(900, sd = 0.8), ncol = 3), truth = truth)
}

test_that("a fit of a temporary file equals the fit of the same rows in memory", {
    b <- file_blobs(21L)
    path <- tempfile(fileext = ".f32")
    on.exit(unlink(path))
    write_f32(b$x, path)
    for (method in c("exact", "nystrom", "rff")) {
        from_file <- kkmeans_file(path, 3, 3, method = method, m = 40, gamma = 0.2, seed = 5)
        in_memory <- kkmeans(b$x, 3, method = method, m = 40, gamma = 0.2, seed = 5)
        expect_identical(unname(from_file$cluster), unname(in_memory$cluster), label = method)
        expect_equal(from_file$tot.withinss, in_memory$tot.withinss, tolerance = 1e-6, label = method)
        expect_identical(from_file$size, in_memory$size, label = method)
        expect_identical(c(from_file$n, from_file$d), c(300L, 3L))
        expect_identical(predict(from_file, b$x[1:20, ]), predict(in_memory, b$x[1:20, ]))
        expect_true(all(is.na(from_file$withinss)) && is.na(from_file$totss))
    }
    expect_gt(adjusted_rand_index(from_file$cluster, b$truth), 0.9)
    expect_identical(dim(from_file$feature_centers), c(3L, 40L))  # rff: the model's centres
    # Weights, one per row of the file, and the file path with ~.
    w <- rep(c(1, 3), 150)
    expect_identical(kkmeans_file(path, 3, 3, method = "nystrom", m = 40, seed = 5, weights = w)$cluster,
                     unname(kkmeans(b$x, 3, method = "nystrom", m = 40, seed = 5, weights = w)$cluster))
    expect_error(kkmeans_file(path, 3, 3, weights = 1:7), class = "kkmeans_invalid_argument", regexp = "n_weights=7")
})

test_that("a missing file is an IO error naming it", {
    missing <- file.path(tempdir(), "no-such-file.f32")
    expect_error(kkmeans_file(missing, 3, 2), class = "kkmeans_io", regexp = "no-such-file.f32", fixed = TRUE)
    err <- tryCatch(kkmeans_file(missing, 3, 2), error = identity)
    expect_s3_class(err, "kkmeans_error")
})

test_that("the file's size, dims and centers are checked", {
    path <- tempfile(fileext = ".f32")
    on.exit(unlink(path))
    write_f32(matrix(runif(30), ncol = 3), path)
    expect_error(kkmeans_file(path, 4, 2), class = "kkmeans_invalid_argument", regexp = "multiple")
    expect_error(kkmeans_file(path, 0, 2), class = "kkmeans_invalid_argument", regexp = "dims")
    expect_error(kkmeans_file(path, 2.5, 2), class = "kkmeans_invalid_argument", regexp = "dims")
    expect_error(kkmeans_file(c(path, path), 3, 2), class = "kkmeans_invalid_argument", regexp = "path")
    expect_error(kkmeans_file(path, 3, matrix(0, 2, 2)), class = "kkmeans_invalid_argument", regexp = "dims = 3")
    fit <- kkmeans_file(path, 3, matrix(c(0.1, 0.2, 0.3, 0.9, 0.8, 0.7), 2, byrow = TRUE), method = "exact",
                        kernel = "linear")
    expect_identical(fit$params$n_init, 1)  # a given start runs once
    expect_length(fit$cluster, 10L)
})
