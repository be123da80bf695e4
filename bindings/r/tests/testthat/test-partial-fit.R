# kkmeans_partial_fit(): streams of batches (kkm_partial_fit), the objects they return, and
# the methods it refuses.

# Three blobs in 2-D around (0, 0), (6, 0) and (0, 6), n rows in random order.
stream_blobs <- function(n, seed) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    centres <- rbind(c(0, 0), c(6, 0), c(0, 6))
    truth <- sample(rep(1:3, length.out = n))
    list(x = centres[truth, ] + matrix(rnorm(2L * n, sd = 0.7), ncol = 2), truth = truth)
}

# The rows of b in batches: `first` rows, then `size` at a time.
batches_of <- function(n, first, size) {
    starts <- c(1L, seq(first + 1L, n, by = size))
    ends <- c(first, pmin(n, seq(first + size, n + size - 1L, by = size)))
    lapply(seq_along(starts), function(i) starts[i]:ends[i])[starts <= n]
}

test_that("a stream of shuffled blob batches clusters as well as one fit of all rows", {
    b <- stream_blobs(1500L, 11L)
    for (method in c("nystrom", "sketch", "rff", "minibatch")) {
        whole <- kkmeans(b$x, 3, method = method, m = 60, gamma = 0.1, seed = 3)
        fit <- NULL
        batches <- batches_of(1500L, 300L, 200L)
        for (rows in batches) {
            fit <- if (is.null(fit)) {
                kkmeans_partial_fit(NULL, b$x[rows, ], 3, method = method, m = 60, gamma = 0.1, seed = 3)
            } else {
                kkmeans_partial_fit(fit, b$x[rows, ])
            }
        }
        streamed <- predict(fit, b$x)
        ari_whole <- adjusted_rand_index(whole$cluster, b$truth)
        ari_stream <- adjusted_rand_index(streamed, b$truth)
        expect_gt(ari_stream, 0.95, label = method)
        expect_gt(ari_stream, ari_whole - 0.02, label = method)
        expect_gt(normalized_mutual_info(streamed, b$truth), normalized_mutual_info(whole$cluster, b$truth) - 0.02,
                  label = method)
        expect_identical(fit$stream, list(batches = length(batches), rows = 1500, weighted = FALSE))
        expect_identical(fit$method, method)
    }
})

test_that("the object describes the last batch; sizes count the whole stream", {
    b <- stream_blobs(900L, 12L)
    first <- kkmeans_partial_fit(NULL, b$x[1:300, ], 3, method = "nystrom", m = 50, gamma = 0.1, seed = 1)
    expect_s3_class(first, "kkmeans")
    expect_identical(first$stream, list(batches = 1L, rows = 300, weighted = FALSE))
    # The first batch is fitted as kkmeans() fits it.
    one <- kkmeans(b$x[1:300, ], 3, method = "nystrom", m = 50, gamma = 0.1, seed = 1)
    expect_identical(first$cluster, one$cluster)
    expect_equal(first$tot.withinss, one$tot.withinss)

    second <- kkmeans_partial_fit(first, b$x[301:500, ])
    expect_identical(second$n, 200L)
    expect_length(second$cluster, 200L)
    expect_true(all(second$cluster %in% 1:3))
    expect_identical(second$cluster, predict(second, b$x[301:500, ]))  # labels after the update
    expect_true(is.integer(second$size))
    expect_identical(sum(second$size), 500L)
    expect_identical(second$iter, first$iter + 1L)
    expect_identical(nrow(second$feature_centers), 3L)  # the stream's centres, in the feature space
    expect_equal(sum(second$withinss) + second$betweenss, second$totss)
    expect_lte(sum(second$withinss), second$tot.withinss * (1 + 1e-4))  # the batch means fit it best
    expect_identical(second$params$m, 50)
    expect_identical(second$params$seed, 1)

    # Weighted batches: sizes are weights.
    third <- kkmeans_partial_fit(second, b$x[501:600, ], weights = rep(2, 100))
    expect_true(third$stream$weighted)
    expect_equal(sum(third$size), 700)
    expect_error(kkmeans_partial_fit(third, b$x[601:700, ], weights = rep(1, 3)), class = "kkmeans_invalid_argument")
})

test_that("objects are values: an earlier object still predicts with its own centres", {
    b <- stream_blobs(700L, 13L)
    first <- kkmeans_partial_fit(NULL, b$x[1:300, ], 3, method = "rff", m = 40, gamma = 0.1, seed = 2)
    before <- predict(first, b$x, type = "distance")
    second <- kkmeans_partial_fit(first, b$x[301:500, ])
    expect_equal(predict(first, b$x, type = "distance"), before)          # rebuilt from its buffer
    expect_false(isTRUE(all.equal(predict(second, b$x, type = "distance"), before)))
    # Branching: two continuations of one object are the same.
    again <- kkmeans_partial_fit(first, b$x[301:500, ])
    expect_equal(predict(again, b$x, type = "distance"), predict(second, b$x, type = "distance"))
    # A stream survives saveRDS/readRDS.
    path <- tempfile(fileext = ".rds")
    on.exit(unlink(path))
    saveRDS(second, path)
    restored <- readRDS(path)
    expect_equal(predict(kkmeans_partial_fit(restored, b$x[501:700, ]), b$x, type = "distance"),
                 predict(kkmeans_partial_fit(second, b$x[501:700, ]), b$x, type = "distance"))
})

test_that("a kkmeans() fit of a feature method goes on as a stream", {
    b <- stream_blobs(600L, 14L)
    fit <- kkmeans(b$x[1:400, ], 3, method = "sketch", m = 40, gamma = 0.1, seed = 4)
    more <- kkmeans_partial_fit(fit, b$x[401:600, ])
    expect_identical(more$stream, list(batches = 2L, rows = 600, weighted = FALSE))
    expect_identical(sum(more$size), 600L)
})

test_that("method exact and the other methods that need every row are refused naming kkm_partial_fit", {
    b <- stream_blobs(300L, 15L)
    expect_error(kkmeans_partial_fit(NULL, b$x, 3, method = "exact", seed = 1),
                 class = "kkmeans_invalid_argument", regexp = "kkm_partial_fit")
    err <- tryCatch(kkmeans_partial_fit(NULL, b$x, 3, method = "exact", seed = 1), error = identity)
    expect_match(conditionMessage(err), "method=exact")
    expect_match(conditionMessage(err), "use kkmeans()", fixed = TRUE)
    exact <- kkmeans(b$x, 3, method = "exact", gamma = 0.1, seed = 1)
    expect_error(kkmeans_partial_fit(exact, b$x), class = "kkmeans_invalid_argument", regexp = "kkm_partial_fit")
    expect_identical(predict(exact, b$x), exact$cluster)  # the refused batch changed nothing
    for (kernel in c("knn", "heat")) {
        expect_error(kkmeans_partial_fit(NULL, b$x, 3, kernel = kernel, seed = 1),
                     class = "kkmeans_invalid_argument", regexp = "kkm_partial_fit")
    }
    expect_error(kkmeans_partial_fit(NULL, b$x, 3, method = "minibatch", tau = 0, seed = 1),
                 class = "kkmeans_invalid_argument", regexp = "kkm_partial_fit")
})

test_that("a stream's parameters, widths and first batch are checked", {
    b <- stream_blobs(400L, 16L)
    fit <- kkmeans_partial_fit(NULL, b$x[1:200, ], 3, method = "nystrom", m = 30, seed = 1)
    expect_error(kkmeans_partial_fit(fit, b$x[201:400, ], gamma = 2), class = "kkmeans_invalid_argument",
                 regexp = "keeps the parameters")
    expect_error(kkmeans_partial_fit(fit, b$x[201:400, ], method = "rff"), class = "kkmeans_invalid_argument")
    expect_error(kkmeans_partial_fit(fit, cbind(b$x[201:400, ], 1)), class = "kkmeans_invalid_argument",
                 regexp = "3 columns")
    expect_error(kkmeans_partial_fit(NULL, b$x[1:20, ], 3, method = "nystrom", m = 30, seed = 1),
                 class = "kkmeans_invalid_argument", regexp = "m=30")
    expect_error(kkmeans_partial_fit(NULL, b$x, b$x[1:3, ]), class = "kkmeans_invalid_argument")
    expect_error(kkmeans_partial_fit("fit", b$x), class = "kkmeans_invalid_argument")
    bad <- b$x[201:400, ]
    bad[5, 2] <- NaN
    expect_error(kkmeans_partial_fit(fit, bad), class = "kkmeans_invalid_data", regexp = "row 5, column 2")
    # The failed batches left the stream as it was.
    expect_identical(kkmeans_partial_fit(fit, b$x[201:400, ])$stream$batches, 2L)
})
