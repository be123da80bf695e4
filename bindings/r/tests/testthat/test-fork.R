# Forked children (parallel::mclapply) after a threaded fit. OpenMP's thread pool does not
# survive fork: before the library noticed that it runs in a child (and went single-threaded
# there), any fit or predict in an mclapply worker after a threaded fit never returned.

# Runs f() in a forked child (parallel::mcparallel) and returns its value. A child still
# running after `seconds` is killed with its own children (mclapply's workers), and the test
# fails there instead of hanging the suite.
within_seconds <- function(f, seconds = 60) {
    job <- parallel::mcparallel(f())
    result <- parallel::mccollect(job, wait = FALSE, timeout = seconds)
    if (is.null(result)) {
        if (nzchar(Sys.which("pkill"))) system2("pkill", c("-KILL", "-P", job$pid))
        tools::pskill(job$pid, tools::SIGKILL)
        parallel::mccollect(job, wait = TRUE)
        fail(sprintf("still running after %d s: a fork child hung", seconds))
        return(NULL)
    }
    result[[1L]]
}

test_that("fit and predict in mclapply workers after a threaded fit equal the parent's", {
    skip_on_os("windows")  # no fork
    d <- make_rings(400L, seed = 41L)
    fit_one <- function(method) {
        kkmeans(d$x, 2, method = method, gamma = ring_gamma, m = 100, nstart = 3, seed = 1, threads = 2)
    }
    methods <- c("exact", "nystrom")
    parent <- lapply(methods, fit_one)  # threaded: the parent's OpenMP pool now exists
    in_workers <- within_seconds(function() {
        parallel::mclapply(seq_along(methods), function(i) {
            list(cluster = fit_one(methods[i])$cluster, predicted = predict(parent[[i]], d$x))
        }, mc.cores = 2)
    })
    if (!is.null(in_workers)) {
        expect_length(in_workers, length(methods))
        for (i in seq_along(methods)) {
            expect_false(inherits(in_workers[[i]], "try-error"), label = methods[i])
            expect_identical(in_workers[[i]]$cluster, parent[[i]]$cluster, label = methods[i])
            expect_identical(in_workers[[i]]$predicted, parent[[i]]$cluster, label = methods[i])
        }
    }
    # The parent's own pool still works after the fork.
    expect_identical(fit_one("nystrom")$cluster, parent[[2L]]$cluster)
})
