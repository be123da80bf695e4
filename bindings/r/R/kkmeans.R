# The idiomatic R layer of the kkmeans package (hand-written).
#
# The SWIG-generated functions in swig_kkmeans.R (NativeModel, NativeModel_fit_f64, ...) are
# internal; this file builds on them a stats::kmeans-like interface: kkmeans() returns an S3
# object of class "kkmeans" with print, summary, fitted, predict and plot methods.
#
# Native model life cycle. kkmeans() keeps the SWIG NativeModel (an S4 object around an
# external pointer whose finalizer calls kkm_destroy) in an environment, object$native, and
# the library's serialised model in object$model_buffer (a raw vector). saveRDS() writes the
# raw vector; readRDS() restores the external pointer as NULL, and native_model() then
# rebuilds the native model from the buffer (kkm_load_buffer) on first use and caches it in
# the same environment. A NULL pointer is never passed to the library.

# ------------------------------------------------------------------ errors

.kkm_status_names <- c("invalid_argument", "invalid_data", "not_fitted", "out_of_memory",
                       "io", "format", "cancelled", "internal")

# A condition of class c("kkmeans_<status>", "kkmeans_error", "error", "condition").
kkmeans_error <- function(message, status = 1L, call = NULL) {
    status <- as.integer(status)
    name <- if (status >= 1L && status <= length(.kkm_status_names)) .kkm_status_names[status] else "internal"
    structure(class = c(paste0("kkmeans_", name), "kkmeans_error", "error", "condition"),
              list(message = message, call = call, status = status))
}

# Evaluates a call into the SWIG layer; an error it raises ("SWIG:ValueError [kkm_status=1]
# message", see bindings/swig/r.i) is re-raised as a kkmeans_error with the library's message.
native_call <- function(expr, call = sys.call(-1L)) {
    tryCatch(expr, error = function(e) {
        converted <- as_kkmeans_error(e, call)
        stop(if (is.null(converted)) e else converted)
    })
}

# The kkmeans_error for an error of the SWIG layer, or NULL for any other error.
as_kkmeans_error <- function(e, call) {
    msg <- conditionMessage(e)
    hit <- regmatches(msg, regexec("\\[kkm_status=([0-9]+)\\] (.*)$", msg))[[1L]]
    if (length(hit) == 3L) kkmeans_error(hit[3L], as.integer(hit[2L]), call) else NULL
}

# ------------------------------------------------------------------ progress and interrupts

# The progress bar of progress = TRUE: one line on stderr, rewritten in place ("\r"), through
# message() so that suppressMessages() silences it.
progress_bar <- function(state, width = 30L) {
    function(stage, fraction) {
        done <- max(0L, min(width, as.integer(round(fraction * width))))
        message(sprintf("\rkkmeans %-12s |%s%s| %3d%%", stage, strrep("=", done), strrep(" ", width - done),
                        as.integer(round(100 * fraction))), appendLF = FALSE)
        state$shown <- TRUE
        TRUE
    }
}

# The R function the native fit calls at each report (bindings/swig/r.i): NULL (interrupts
# are checked all the same), the progress bar, or the user's function(stage, fraction).
progress_function <- function(progress, state, call) {
    if (is.null(progress) || isFALSE(progress)) return(NULL)
    if (isTRUE(progress)) return(progress_bar(state))
    if (is.function(progress)) return(progress)
    stop(kkmeans_error("progress must be TRUE, FALSE or a function(stage, fraction)", 1L, call))
}

# Fits the native model with progress reports and interrupt checks. The native callback runs
# R code (the interrupt check, the progress function) under R_UnwindProtect: an R jump out
# of it (Ctrl-C, an error in the progress function) cancels the fit, and once the library has
# returned (no C++ frame is live) native_continue_unwind() resumes that jump here: an
# interrupt reaches tryCatch(interrupt = ) or the top level, an error its handlers, as if
# raised here. The model is unchanged.
fit_native <- function(model, x, weights, progress, call) {
    state <- new.env(parent = emptyenv())
    state$shown <- FALSE
    listener <- list(progress_function(progress, state, call), native_unwind_token())
    on.exit(if (state$shown) message(""))
    # Not native_call(): its tryCatch would be the target of a jump stopped in the callback
    # (an error in the progress function) and would be gone when the jump is resumed. A
    # calling handler is no jump target; it converts only the library's own errors.
    code <- withCallingHandlers(
        if (is.null(weights)) {
            NativeModel_fit_f64_progress(model, row_major(x), nrow(x), ncol(x), listener)
        } else {
            NativeModel_fit_weighted_f64_progress(model, row_major(x), nrow(x), ncol(x), as.double(weights), listener)
        },
        error = function(e) {
            converted <- as_kkmeans_error(e, call)
            if (!is.null(converted)) stop(converted)
        })
    if (code == -1L) native_continue_unwind(listener[[2L]])
    if (code == 7L) stop(kkmeans_error("the fit was cancelled: the progress function returned FALSE", 7L, call))
    invisible(code)
}

# ------------------------------------------------------------------ inputs

# A numeric matrix (double storage) from a matrix, data.frame or vector; error otherwise or
# when a value is missing or not finite (NA, NaN, Inf), naming the first such cell (1-based).
as_data_matrix <- function(x, what = "x", call = sys.call(-1L)) {
    if (is.data.frame(x)) {
        ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1L))
        if (!all(ok)) {
            stop(kkmeans_error(sprintf("%s: column '%s' is not numeric", what, names(x)[which(!ok)[1L]]),
                               1L, call))
        }
        x <- as.matrix(x)
    } else if (is.vector(x) && (is.numeric(x) || is.logical(x))) {
        x <- matrix(x, ncol = 1L)
    } else if (!is.matrix(x)) {
        stop(kkmeans_error(sprintf("%s must be a numeric matrix or data frame, not %s", what, class(x)[1L]),
                           1L, call))
    }
    if (!(is.numeric(x) || is.logical(x))) {
        stop(kkmeans_error(sprintf("%s must be numeric, not %s", what, typeof(x)), 1L, call))
    }
    if (nrow(x) == 0L || ncol(x) == 0L) {
        stop(kkmeans_error(sprintf("%s has no data (%d x %d)", what, nrow(x), ncol(x)), 1L, call))
    }
    if (storage.mode(x) != "double") storage.mode(x) <- "double"
    if (anyNA(x) || any(is.infinite(x))) {
        bad <- which(!is.finite(x), arr.ind = TRUE)[1L, ]
        value <- x[bad[1L], bad[2L]]
        stop(kkmeans_error(sprintf("%s has a missing or non-finite value (%s) at row %d, column %d",
                                   what, format(value), bad[1L], bad[2L]), 2L, call))
    }
    x
}

# Row-major doubles of a matrix, as the library reads them.
row_major <- function(x) as.vector(t(x))

# Parameter aliases of the library (kkm_param_info) mapped to their canonical keys, so that
# object$params names each parameter once.
.kkm_aliases <- c(n_clusters = "k", centers = "k", beta = "bandwidth_scale", landmarks = "m",
                  n_components = "m", s = "rank", l = "reg_rank", b = "batch_size",
                  nstart = "n_init", iter.max = "max_iter", random_state = "seed",
                  num_threads = "threads", n_jobs = "threads")

# "key=value key=value" from a named list; logical → true/false, numbers without exponent
# notation where possible (ints such as m=100000 must not become "1e+05").
format_params <- function(params) {
    if (length(params) == 0L) return("")
    keys <- names(params)
    if (is.null(keys) || any(keys == "")) stop("every parameter must be named, e.g. gamma = 0.5")
    values <- vapply(seq_along(params), function(i) {
        v <- params[[i]]
        if (length(v) != 1L || is.na(v)) stop(sprintf("parameter '%s' must be a single value", keys[i]))
        if (is.logical(v)) return(if (v) "true" else "false")
        if (is.factor(v)) v <- as.character(v)
        if (is.numeric(v)) {
            text <- format(v, digits = 15L, scientific = FALSE, trim = TRUE)
            if (nchar(text) > 24L) text <- format(v, digits = 17L, trim = TRUE)
            return(text)
        }
        if (is.character(v)) {
            if (grepl("[[:space:],=]", v)) stop(sprintf("parameter '%s' has a value with a space, comma or '='", keys[i]))
            return(v)
        }
        stop(sprintf("parameter '%s' must be a number, a string or TRUE/FALSE", keys[i]))
    }, character(1L))
    paste0(keys, "=", values, collapse = " ")
}

# A library parameter value as R sees it: a number where it is one, otherwise the text.
parse_param_value <- function(text) {
    num <- suppressWarnings(as.numeric(text))
    if (!is.na(num)) num else text
}

# ------------------------------------------------------------------ native model

# TRUE when a NativeModel holds no native model: freed, or restored by readRDS() (a restored
# external pointer is NULL). Checked in C (bindings/swig/r.i): identical() cannot tell.
native_is_null <- function(model) {
    is.null(model) || native_model_is_null(model)
}

# The object's native model, rebuilt from object$model_buffer when its external pointer is
# NULL (after readRDS/unserialize, or after release_native()).
native_model <- function(object, call = sys.call(-1L)) {
    env <- object$native
    if (!is.environment(env)) stop(kkmeans_error("not a fitted kkmeans object (no native model)", 3L, call))
    model <- env$model
    if (native_is_null(model)) {
        buffer <- object$model_buffer
        if (!is.raw(buffer)) {
            reason <- attr(object, "model_buffer_error")
            stop(kkmeans_error(paste0("the native model is gone (the object was saved and restored, or released) ",
                                      "and the object holds no model buffer to rebuild it from",
                                      if (!is.null(reason)) paste0(": saving it had failed: ", reason) else ""),
                               3L, call))
        }
        model <- NativeModel()
        native_call(NativeModel_load_buffer(model, buffer), call)
        env$model <- model
    }
    model
}

# Frees the native model now (it is rebuilt from the buffer on next use). For tests and for
# releasing memory early; the finalizer does the same when the object is garbage collected.
release_native <- function(object) {
    env <- object$native
    if (is.environment(env) && !native_is_null(env$model)) delete_NativeModel(env$model)
    invisible(object)
}

# ------------------------------------------------------------------ kkmeans()

# Kernel k-means clustering (documented in man/kkmeans.Rd).
#
# `...` comes before method, kernel and weights on purpose: R matches abbreviated argument
# names to the formals before `...`, so with kkmeans(x, centers, method, kernel, ...) the
# library's m = 200 (landmarks) would silently become method = 200 and k = 3 kernel = 3.
# After `...` only exact names match; method and kernel must be named.
kkmeans <- function(x, centers, ..., method = "nystrom", kernel = "rbf", weights = NULL,
                    progress = getOption("kkmeans.progress", interactive())) {
    call <- match.call()
    extra <- list(...)
    # k = (or one of its aliases) in place of centers, e.g. kkmeans(x, k = "auto").
    if (missing(centers) && length(extra) > 0L && !is.null(names(extra))) {
        given <- which(names(extra) %in% c("k", names(.kkm_aliases)[.kkm_aliases == "k"]))
        if (length(given) == 1L) {
            centers <- extra[[given]]
            extra <- extra[-given]
        }
    }
    if (missing(centers) || !is_centers(centers)) {
        stop(kkmeans_error(paste("centers must be the number of clusters, a single whole number or \"auto\"",
                                 "(initial centres are not supported)"), 1L, call))
    }
    x <- as_data_matrix(x, "x", call)
    n <- nrow(x)
    d <- ncol(x)

    if (length(extra) > 0L) {
        keys <- names(extra)
        if (is.null(keys) || any(keys == "")) {
            stop(kkmeans_error(paste("arguments after centers must be named, e.g.",
                                     "kkmeans(x, 2, method = \"exact\", gamma = 0.5)"), 1L, call))
        }
        canonical <- ifelse(keys %in% names(.kkm_aliases), .kkm_aliases[keys], keys)
        if (any(canonical %in% c("k", "method", "kernel"))) {
            stop(kkmeans_error("give k as centers, and method and kernel as their own arguments", 1L, call))
        }
        if (anyDuplicated(canonical)) {
            stop(kkmeans_error(sprintf("parameter '%s' is given twice", canonical[anyDuplicated(canonical)]), 1L, call))
        }
        names(extra) <- canonical
    }
    # Without a seed, draw one from R's generator so that set.seed() makes fits reproducible,
    # as it does for stats::kmeans; object$params$seed records it.
    if (is.null(extra$seed)) extra$seed <- sample.int(.Machine$integer.max, 1L)
    params <- c(list(k = if (is.numeric(centers)) as.integer(centers) else "auto", method = method, kernel = kernel),
                extra)
    param_string <- tryCatch(format_params(params),
                             error = function(e) stop(kkmeans_error(conditionMessage(e), 1L, call)))

    if (!is.null(weights) && (!is.numeric(weights) || length(weights) != n)) {
        stop(kkmeans_error(sprintf("weights must be a numeric vector of length nrow(x) = %d", n), 1L, call))
    }

    model <- NativeModel()
    native_call(NativeModel_set_params(model, param_string), call)
    fit_native(model, x, weights, progress, call)

    k <- native_call(NativeModel_k(model), call)
    labels <- native_call(NativeModel_labels(model, n), call) + 1L
    sizes <- native_call(NativeModel_cluster_sizes(model, k), call)
    if (is.null(weights)) sizes <- as.integer(round(sizes))

    keys <- unique(c("k", "method", "kernel", "gamma", if (method != "exact") "m", names(extra)))
    resolved <- lapply(keys, function(key) parse_param_value(native_call(NativeModel_get_param(model, key), call)))
    names(resolved) <- keys
    searched <- c("gamma", "k")[c(identical(extra[["gamma"]], "search"), identical(centers, "auto"))]

    # The library's serialised model: what readRDS() rebuilds the native model from.
    buffer_error <- NULL
    buffer <- tryCatch({
        size <- native_call(NativeModel_save_size(model), call)
        native_call(NativeModel_save_buffer(model, size), call)
    }, kkmeans_error = function(e) {
        buffer_error <<- conditionMessage(e)
        NULL
    })

    native <- new.env(parent = emptyenv())
    native$model <- model
    if (!is.null(rownames(x))) names(labels) <- rownames(x)
    object <- structure(list(
        cluster = labels,
        size = sizes,
        tot.withinss = native_call(NativeModel_objective(model), call),
        iter = native_call(NativeModel_iterations(model), call),
        method = resolved$method,
        kernel = resolved$kernel,
        params = resolved,
        n = n,
        d = d,
        colnames = colnames(x),
        timings = native_call(NativeModel_timings(model), call),
        search = search_table(model, searched, call),
        call = call,
        model_buffer = buffer,
        native = native
    ), class = "kkmeans")
    attr(object, "model_buffer_error") <- buffer_error
    object
}

# TRUE for a valid centers argument: a single whole number or "auto".
is_centers <- function(centers) {
    if (identical(centers, "auto")) return(TRUE)
    is.numeric(centers) && length(centers) == 1L && !is.na(centers) && centers == round(centers)
}

.kkm_search_criteria <- c("stability", "matr")  # KKM_SEARCH_STABILITY = 0, KKM_SEARCH_MATR = 1

# What the fit's gamma = "search" / k = "auto" scored: data.frame(gamma, k, score, criterion),
# one row per candidate in the order scanned (0 rows when the fit did not search), with the
# names of the searched parameters as attribute "searched".
search_table <- function(model, searched, call) {
    count <- native_call(NativeModel_search_count(model), call)
    codes <- native_call(NativeModel_search_criteria(model, count), call)
    table <- data.frame(gamma = native_call(NativeModel_search_gammas(model, count), call),
                        k = native_call(NativeModel_search_ks(model, count), call),
                        score = native_call(NativeModel_search_scores(model, count), call),
                        criterion = .kkm_search_criteria[codes + 1L],
                        stringsAsFactors = FALSE)
    attr(table, "searched") <- searched
    table
}

# ------------------------------------------------------------------ methods

print.kkmeans <- function(x, ...) {
    k <- length(x$size)
    cat(sprintf("Kernel k-means clustering with %d clusters of sizes %s\n", k, paste(format(x$size), collapse = ", ")))
    cat(sprintf("Method %s, kernel %s; %s\n", x$method, x$kernel,
                paste(names(x$params), vapply(x$params, format, character(1L)), sep = "=", collapse = " ")))
    search <- x$search
    if (is.data.frame(search) && nrow(search) > 0L) {
        searched <- attr(search, "searched")
        if (length(searched) == 0L) searched <- c("gamma", "k")
        chosen <- paste(searched, vapply(x$params[searched], format, character(1L)), sep = "=", collapse = " ")
        cat(sprintf("Chosen by search: %s (%d candidates scored by %s; see $search)\n", chosen, nrow(search),
                    paste(unique(search$criterion), collapse = " and ")))
    }
    cat("\nClustering vector:\n")
    print(x$cluster, ...)
    cat(sprintf("\nObjective (tot.withinss, in kernel space): %s after %d iterations\n",
                format(x$tot.withinss), as.integer(x$iter)))
    cat("\nAvailable components:\n")
    print(names(x))
    invisible(x)
}

summary.kkmeans <- function(object, ...) {
    k <- length(object$size)
    structure(list(
        k = k,
        n = object$n,
        d = object$d,
        method = object$method,
        kernel = object$kernel,
        params = object$params,
        sizes = stats::setNames(object$size, seq_len(k)),
        tot.withinss = object$tot.withinss,
        iter = object$iter,
        timings = object$timings,
        persistent = is.raw(object$model_buffer)
    ), class = "summary.kkmeans")
}

print.summary.kkmeans <- function(x, ...) {
    cat(sprintf("Kernel k-means: %d clusters of %d points in %d dimensions\n", x$k, x$n, x$d))
    cat(sprintf("Method: %s   Kernel: %s\n", x$method, x$kernel))
    cat("Parameters:\n")
    print(unlist(lapply(x$params, format)), quote = FALSE)
    cat("Cluster sizes:\n")
    print(x$sizes)
    cat(sprintf("Objective (tot.withinss): %s\nIterations: %d\n", format(x$tot.withinss), as.integer(x$iter)))
    cat(sprintf("Timings (s): %s\n", x$timings))
    if (!x$persistent) cat("Note: no model buffer (saveRDS() will not keep the native model)\n")
    invisible(x)
}

# Cluster of each training row (1-based), as stats::fitted(<kmeans>, method = "classes").
fitted.kkmeans <- function(object, method = c("classes", "centers"), ...) {
    method <- match.arg(method)
    if (method == "centers") {
        stop(kkmeans_error("kernel k-means has no cluster centres in input space; use method = \"classes\"", 1L,
                           sys.call()))
    }
    object$cluster
}

# Nearest fitted cluster (1-based) of each row of newdata; without newdata, the training
# clusters.
predict.kkmeans <- function(object, newdata, ...) {
    call <- sys.call()
    if (missing(newdata) || is.null(newdata)) return(object$cluster)
    x <- as_data_matrix(newdata, "newdata", call)
    if (!is.null(object$colnames) && !is.null(colnames(x)) && setequal(colnames(x), object$colnames) &&
        ncol(x) == length(object$colnames)) {
        x <- x[, object$colnames, drop = FALSE]
    }
    if (ncol(x) != object$d) {
        stop(kkmeans_error(sprintf("newdata has %d columns but the model was fitted on %d", ncol(x), object$d),
                           1L, call))
    }
    n <- nrow(x)
    model <- native_model(object, call)
    labels <- native_call(NativeModel_assign_f64(model, row_major(x), n, ncol(x), n), call) + 1L
    if (!is.null(rownames(x))) names(labels) <- rownames(x)
    labels
}

# Scatter plot of 2-D data coloured by cluster: the training data (pass it as `data`; the
# object does not keep it) or any 2-column data, coloured by predict().
plot.kkmeans <- function(x, data, col = NULL, pch = 19, main = NULL, xlab = NULL, ylab = NULL, legend = TRUE, ...) {
    call <- sys.call()
    if (x$d != 2L) {
        stop(kkmeans_error(sprintf("plot() shows 2-D data only; this model was fitted on %d columns", x$d), 1L, call))
    }
    if (missing(data)) {
        stop(kkmeans_error("pass the data to plot: plot(fit, x) (a kkmeans object does not keep its training data)",
                           1L, call))
    }
    m <- as_data_matrix(data, "data", call)
    if (ncol(m) != 2L) stop(kkmeans_error(sprintf("data has %d columns; plot() needs 2", ncol(m)), 1L, call))
    labels <- predict(x, m)  # for the training data these are fitted(x)
    k <- length(x$size)
    palette <- if (is.null(col)) grDevices::hcl.colors(max(k, 2L), "Dark 3")[seq_len(k)] else rep_len(col, k)
    names <- colnames(m)
    graphics::plot(m[, 1L], m[, 2L], col = palette[labels], pch = pch,
                   main = if (is.null(main)) sprintf("kkmeans: %d clusters (%s, %s kernel)", k, x$method, x$kernel) else main,
                   xlab = if (is.null(xlab)) (if (is.null(names)) "x1" else names[1L]) else xlab,
                   ylab = if (is.null(ylab)) (if (is.null(names)) "x2" else names[2L]) else ylab, ...)
    if (isTRUE(legend)) {
        graphics::legend("topright", legend = paste("cluster", seq_len(k)), col = palette, pch = pch, bty = "n")
    }
    invisible(labels)
}

# ------------------------------------------------------------------ library helpers

as_label_codes <- function(a) {
    if (is.factor(a) || is.character(a)) a <- as.integer(factor(a))
    if (!is.numeric(a) || anyNA(a)) stop("labels must be a vector of integers, a factor or strings without NA")
    as.integer(a)
}

adjusted_rand_index <- function(a, b) {
    call <- sys.call()
    a <- as_label_codes(a)
    b <- as_label_codes(b)
    native_call(NativeModel_adjusted_rand_index(a, b), call)
}

normalized_mutual_info <- function(a, b) {
    call <- sys.call()
    a <- as_label_codes(a)
    b <- as_label_codes(b)
    native_call(NativeModel_normalized_mutual_info(a, b), call)
}

kkmeans_version <- function() NativeModel_version()
