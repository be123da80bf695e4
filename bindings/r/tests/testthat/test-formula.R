# The formula interface (data, na.action) and predict(type = "distance").

blob_frame <- function(seed = 61L) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    truth <- rep(1:3, each = 30)
    x <- 5 * diag(3)[truth, ] + matrix(rnorm(270, sd = 0.5), ncol = 3)
    list(df = data.frame(a = x[, 1], b = x[, 2], c = x[, 3]), truth = truth)
}

test_that("kkmeans(~ ., data = df) equals the matrix fit; na.omit drops and reports rows with NA", {
    b <- blob_frame()
    df <- b$df
    df$a[c(4, 40)] <- NA
    df$c[70] <- NaN
    fit <- kkmeans(~ ., data = df, centers = 3, method = "exact", gamma = 0.1, seed = 1)
    kept <- -c(4, 40, 70)
    ref <- kkmeans(as.matrix(b$df[kept, ]), 3, method = "exact", gamma = 0.1, seed = 1)
    expect_identical(unname(fit$cluster), unname(ref$cluster))
    expect_identical(names(fit$cluster), rownames(df)[kept])
    expect_equal(adjusted_rand_index(fit$cluster, b$truth[kept]), 1)
    expect_identical(fit$n, 87L)
    expect_s3_class(fit$na.action, "omit")
    expect_identical(as.integer(fit$na.action), c(4L, 40L, 70L))
    expect_output(print(fit), "3 observations deleted due to missingness")
    expect_length(fitted(fit), 87L)
    expect_identical(predict(fit, b$df[1:5, ]), predict(ref, as.matrix(b$df[1:5, ])))
    # a subset of the columns, by name
    two <- kkmeans(~ a + b, data = df, centers = 3, method = "exact", gamma = 0.1, seed = 1)
    expect_identical(two$d, 2L)
    expect_identical(two$colnames, c("a", "b"))
})

test_that("na.exclude pads fitted() with NA; na.fail and a response are errors", {
    b <- blob_frame(62L)
    df <- b$df
    df$b[5] <- NA
    fit <- kkmeans(~ ., data = df, centers = 3, method = "exact", gamma = 0.1, seed = 1, na.action = na.exclude)
    expect_length(fit$cluster, 89L)
    expect_length(fitted(fit), 90L)
    expect_true(is.na(fitted(fit)[5]))
    expect_identical(sum(is.na(fitted(fit))), 1L)
    expect_error(kkmeans(~ ., data = df, centers = 3, na.action = na.fail), "missing values",
                 class = "kkmeans_invalid_data")
    expect_error(kkmeans(a ~ ., data = df, centers = 3), "one-sided formula", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(~ nothere, data = df, centers = 3), "nothere", class = "kkmeans_invalid_argument")
    expect_error(kkmeans(as.matrix(df), 3, data = df), "formula interface", class = "kkmeans_invalid_argument")
    # a matrix gets na.action only when it is given
    expect_error(kkmeans(as.matrix(df), 3), "row 5, column 2", class = "kkmeans_invalid_data")
    m <- kkmeans(as.matrix(df), 3, method = "exact", gamma = 0.1, seed = 1, na.action = na.omit)
    expect_identical(as.integer(m$na.action), 5L)
    expect_identical(unname(m$cluster), unname(fit$cluster))
})

test_that("a factor column becomes indicator columns, and predict uses the same coding", {
    b <- blob_frame(63L)
    df <- b$df
    df$g <- factor(ifelse(b$truth == 1, "one", "other"))
    fit <- kkmeans(~ ., data = df, centers = 3, method = "exact", gamma = 0.1, seed = 1)
    expect_identical(fit$d, 4L)
    expect_identical(predict(fit, df[c(2, 50, 80), ]), fit$cluster[c(2, 50, 80)])
})

test_that("predict(type = \"distance\") is the n x k matrix whose row minima are the labels", {
    b <- blob_frame(64L)
    x <- as.matrix(b$df)
    for (method in c("exact", "minibatch", "nystrom", "sketch", "rff")) {
        fit <- kkmeans(x, 3, method = method, gamma = 0.05, m = 40, nstart = 3, seed = 1)
        D <- predict(fit, x, type = "distance")
        expect_identical(dim(D), c(nrow(x), 3L), label = method)
        expect_true(all(D >= 0), label = method)
        expect_identical(max.col(-D, ties.method = "first"), unname(predict(fit, x)), label = method)
        expect_equal(sum(D[cbind(seq_len(nrow(x)), fit$cluster)]), fit$tot.withinss, tolerance = 1e-3,
                     label = method)
        # exactly kkm_assign's distance to the nearest centre
        near <- fastkkm:::NativeModel_assign_distances_f64(fit$native$model, as.vector(t(x)), nrow(x), 3, nrow(x),
                                                           nrow(x))
        expect_identical(unname(apply(D, 1L, min)), near$distances, label = method)
        back <- unserialize(serialize(fit, NULL))
        expect_identical(predict(back, x[1:7, ], type = "distance"), D[1:7, ], label = method)
    }
    expect_error(predict(fit, type = "distance"), "needs newdata", class = "kkmeans_invalid_argument")
})

test_that("predict's na.action: NA rows of a formula fit's data frame get NA; a matrix fit names the cell", {
    b <- blob_frame(64L)
    df <- b$df
    df$a[3] <- NA
    df$b[7] <- NaN
    fit <- kkmeans(~ ., data = df, centers = 3, method = "exact", gamma = 0.1, seed = 1)
    complete <- predict(fit, df[-c(3, 7), ])
    labels <- predict(fit, df)
    expect_length(labels, nrow(df))
    expect_identical(unname(which(is.na(labels))), c(3L, 7L))
    expect_identical(unname(labels[-c(3, 7)]), unname(complete))
    D <- predict(fit, df, type = "distance")
    expect_identical(dim(D), c(nrow(df), 3L))
    expect_true(all(is.na(D[c(3, 7), ])))
    expect_identical(unname(D[-c(3, 7), ]), unname(predict(fit, df[-c(3, 7), ], type = "distance")))
    expect_identical(unname(apply(D[-c(3, 7), ], 1L, which.min)), unname(complete))
    omitted <- predict(fit, df, na.action = na.omit)
    expect_identical(unname(as.vector(omitted)), unname(as.vector(complete)))
    expect_identical(as.integer(attr(omitted, "na.action")), c(3L, 7L))
    expect_identical(unname(predict(fit, df, na.action = na.exclude)), unname(labels))
    expect_error(predict(fit, df, na.action = na.fail), "row 3, column 1", class = "kkmeans_invalid_data")
    expect_identical(unname(predict(fit, df[c(3, 7), ])), c(NA_integer_, NA_integer_))
    df$a[9] <- Inf
    expect_error(predict(fit, df), "Inf.*row 9, column 1", class = "kkmeans_invalid_data")
    x <- as.matrix(b$df)
    mfit <- kkmeans(x, 3, method = "exact", gamma = 0.1, seed = 1)
    x[5, 2] <- NA
    expect_error(predict(mfit, x), "row 5, column 2", class = "kkmeans_invalid_data")
    padded <- predict(mfit, x, na.action = na.pass)
    expect_true(is.na(padded[5]))
    expect_identical(padded[-5], fitted(mfit)[-5])
})
