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

# The kkmeans_error for an error of the SWIG layer, or NULL for any other error. The library's
# message counts rows, columns, nodes and vector elements from 0; R users count from 1
# (one_based_message); and it names C functions where R users gave arguments (r_names).
as_kkmeans_error <- function(e, call) {
    msg <- conditionMessage(e)
    hit <- regmatches(msg, regexec("\\[kkm_status=([0-9]+)\\] (.*)$", msg))[[1L]]
    if (length(hit) == 3L) kkmeans_error(one_based_message(r_names(hit[3L])), as.integer(hit[2L]), call) else NULL
}

# The library's message with the C functions behind R's arguments named as R's arguments: the
# starting partition (kkm_set_init_centres: centers = a matrix; kkm_set_init_labels: init =),
# kkm_fit (kkmeans()). kkm_partial_fit keeps its name (kkmeans_partial_fit() calls it).
r_names <- function(msg) {
    msg <- gsub("(kkm_set_init_labels / kkm_set_init_centres)", "(centers = a matrix, or init = a clustering)", msg,
                fixed = TRUE)
    msg <- gsub("kkm_set_init_labels", "init =", msg, fixed = TRUE)
    msg <- gsub("kkm_set_init_centres", "centers = a matrix", msg, fixed = TRUE)
    msg <- gsub("clear it (NULL)", "drop it", msg, fixed = TRUE)
    msg <- gsub("\\bkkm_fit\\b", "kkmeans()", msg, perl = TRUE)
    gsub("kkm_fit_graph", "a fit on a sparse graph", msg, fixed = TRUE)
}

# Where the library's messages name a place by a 0-based index, the same place counted from 1
# as R does: "row 4, column 1" (of X, K, affinity rows), "(column 2)", "node 3", "weights[0]",
# "values[7]", "indices[7]=3", "labels[2]=1" (a label is an index too), "A[0,3]", "K[2][5]"
# (written K[3, 6]), "(entry 0, 3)"; the half-open ranges "[0, k)" and "[0, n=N)" those
# indices are checked against become "[1, k]" and "[1, n=N]"; the marker " (0-based)" goes.
# Counts ("3 rows"), sizes ("n=5") and values are left alone.
.kkm_index_patterns <- paste(c(
    "\\brow [0-9]+(, column [0-9]+)?",
    "\\(column [0-9]+\\)",
    "\\bnode [0-9]+",
    "\\b(labels|indices)\\[[0-9]+\\]=[0-9]+\\b(?!\\.)",
    "\\b(weights|labels|values|indices|indptr)\\[[0-9]+\\]",
    "\\bA\\[[0-9]+,[0-9]+\\]",
    "\\(entry [0-9]+, [0-9]+\\)"), collapse = "|")

one_based_message <- function(msg) {
    plus_one <- function(text) {
        at <- gregexpr("[0-9]+", text)
        regmatches(text, at) <- list(format(as.numeric(regmatches(text, at)[[1L]]) + 1, scientific = FALSE,
                                            trim = TRUE))
        text
    }
    shift <- function(msg, pattern, fix) {
        at <- gregexpr(pattern, msg, perl = TRUE)
        if (at[[1L]][1L] == -1L) return(msg)
        regmatches(msg, at) <- list(vapply(regmatches(msg, at)[[1L]], fix, "", USE.NAMES = FALSE))
        msg
    }
    msg <- shift(msg, .kkm_index_patterns, plus_one)
    msg <- shift(msg, "\\bK\\[[0-9]+\\]\\[[0-9]+\\]", function(text) {
        ij <- as.numeric(regmatches(text, gregexpr("[0-9]+", text))[[1L]]) + 1
        sprintf("K[%s, %s]", format(ij[1L], scientific = FALSE), format(ij[2L], scientific = FALSE))
    })
    msg <- gsub("[0, k)", "[1, k]", msg, fixed = TRUE)
    msg <- gsub("\\[0, n=([0-9]+)\\)", "[1, n=\\1]", msg)
    gsub(" (0-based)", "", msg, fixed = TRUE)
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

# Fits the native model with progress reports and interrupt checks. x is a numeric matrix of
# points, or a graph (a dgCMatrix from as_graph()) fitted through kkm_fit_graph.
fit_native <- function(model, x, weights, progress, call) {
    listened_fit(progress, call, function(listener) {
        if (is_graph_input(x)) {
            # A symmetric matrix's compressed columns are its compressed rows (CSR of A^T = A).
            NativeModel_fit_graph_progress(model, nrow(x), x@p, x@i, x@x, listener)
        } else if (is.null(weights)) {
            NativeModel_fit_f64_progress(model, row_major(x), nrow(x), ncol(x), listener)
        } else {
            NativeModel_fit_weighted_f64_progress(model, row_major(x), nrow(x), ncol(x), as.double(weights), listener)
        }
    })
}

# Runs fit(listener), a call of one of the native _progress fits, with progress reports and
# interrupt checks. The native callback runs R code (the interrupt check, the progress function)
# under R_UnwindProtect: an R jump out of it (Ctrl-C, an error in the progress function) cancels
# the fit, and once the library has returned (no C++ frame is live) native_continue_unwind()
# resumes that jump here: an interrupt reaches tryCatch(interrupt = ) or the top level, an error
# its handlers, as if raised here. The model is unchanged.
listened_fit <- function(progress, call, fit) {
    state <- new.env(parent = emptyenv())
    state$shown <- FALSE
    listener <- list(progress_function(progress, state, call), native_unwind_token())
    on.exit(if (state$shown) message(""))
    # Not native_call(): its tryCatch would be the target of a jump stopped in the callback
    # (an error in the progress function) and would be gone when the jump is resumed. A
    # calling handler is no jump target; it converts only the library's own errors.
    code <- withCallingHandlers(fit(listener), error = function(e) {
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
# With missing_ok, missing values (NA, NaN) stay for the caller to handle; Inf is still an error.
as_data_matrix <- function(x, what = "x", call = sys.call(-1L), missing_ok = FALSE) {
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
    if ((!missing_ok && anyNA(x)) || any(is.infinite(x))) {
        bad <- which(if (missing_ok) is.infinite(x) else !is.finite(x), arr.ind = TRUE)[1L, ]
        value <- x[bad[1L], bad[2L]]
        stop(kkmeans_error(sprintf("%s has a missing or non-finite value (%s) at row %d, column %d",
                                   what, format(value), bad[1L], bad[2L]), 2L, call))
    }
    x
}

# Row-major doubles of a matrix, as the library reads them.
row_major <- function(x) as.vector(t(x))

# The kernels defined on a neighbour graph (kernel = "knn" or "heat"): method and n_init
# resolve to exact and 10 for them, they take no sample weights, and they fit a graph.
.kkm_graph_kernels <- c("knn", "heat")

# TRUE for a sparse matrix of the Matrix package: kkmeans() takes it as a graph (its affinity
# matrix), predict() as affinity rows.
is_graph_input <- function(x) isS4(x) && methods::is(x, "sparseMatrix")

# A square sparse Matrix as the general, double dgCMatrix kkm_fit_graph reads (symmetric
# storage expanded, pattern and logical entries as 1); the library checks that it is symmetric,
# finite, non-negative, and that every node has an edge.
as_graph <- function(x, call) {
    if (!requireNamespace("Matrix", quietly = TRUE)) {
        stop(kkmeans_error("a sparse graph needs the Matrix package", 1L, call))
    }
    if (nrow(x) != ncol(x)) {
        stop(kkmeans_error(sprintf("a graph is a square n x n affinity matrix, but x is %d x %d", nrow(x), ncol(x)),
                           1L, call))
    }
    g <- tryCatch(methods::as(methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix"),
                  error = function(e) stop(kkmeans_error(paste0("x: ", conditionMessage(e)), 1L, call)))
    if (!methods::is(g, "dgCMatrix")) {
        stop(kkmeans_error(sprintf("x: a %s cannot be read as a graph (convert it to a dgCMatrix)", class(x)[1L]),
                           1L, call))
    }
    g
}

# Dense rows `rows` of x (a matrix, or a sparse graph's affinity rows densified).
dense_rows <- function(x, rows) {
    block <- x[rows, , drop = FALSE]
    if (is_graph_input(block)) as.matrix(block) else block
}

# Parameter aliases of the library (kkm_param_info) mapped to their canonical keys, so that
# object$params names each parameter once.
.kkm_aliases <- c(n_clusters = "k", centers = "k", beta = "bandwidth_scale", landmarks = "m",
                  n_components = "m", s = "rank", l = "reg_rank", b = "batch_size",
                  nstart = "n_init", iter.max = "max_iter", random_state = "seed",
                  num_threads = "threads", n_jobs = "threads", n_neighbors = "neighbors")

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
#
# method = "auto" is the library's: exact for kernel = "knn" and "heat", nystrom otherwise (and
# n_init = "auto": 10 restarts up to 10000 rows and always for those two kernels, 1 beyond and
# for method = "minibatch" with the other kernels). A sparse Matrix x with
# kernel "knn" or "heat" is a graph, fitted through kkm_fit_graph.
kkmeans <- function(x, centers, ..., method = "auto", kernel = "rbf", weights = NULL,
                    algorithm = NULL, data = NULL, na.action = stats::na.omit,
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
    # Starting partitions: centers = a k x d matrix of initial centres (as stats::kmeans; a
    # 1 x 1 matrix is a number there too), or init = a clustering of the rows (1..k, or a
    # factor); the library's init = "kmeans++" or "random" (one string) stays its seeding.
    init_centres <- NULL
    if (!missing(centers) && (is.matrix(centers) || is.data.frame(centers)) && NROW(centers) * NCOL(centers) > 1L) {
        init_centres <- centers
        centers <- nrow(centers)
    }
    init_labels <- NULL
    if (!is.null(names(extra)) && "init" %in% names(extra)) {
        given <- extra[["init"]]
        if (!(is.character(given) && length(given) == 1L)) {
            init_labels <- init_label_codes(given, call)
            extra <- extra[names(extra) != "init"]
            if (!is.null(init_centres)) {
                stop(kkmeans_error("give initial centres (centers = a matrix) or an initial clustering (init =), not both",
                                   1L, call))
            }
            if (missing(centers)) centers <- max(init_labels, attr(init_labels, "levels_count"))
        }
    }
    if (missing(centers) || !is_centers(centers)) {
        stop(kkmeans_error(paste("centers must be the number of clusters (a single whole number or \"auto\") or",
                                 "a k x d matrix of initial centres"), 1L, call))
    }
    refine <- refine_of_algorithm(algorithm, call)
    # The formula interface (kernlab's): the model matrix of a one-sided formula over `data`,
    # rows with missing values handled by na.action. A matrix or data frame gets na.action
    # only when it is given (without it a missing value is an error naming its cell).
    design <- NULL
    omitted <- NULL
    graph <- is_graph_input(x)
    if (graph) {
        if (!(length(kernel) == 1L && kernel %in% .kkm_graph_kernels)) {
            stop(kkmeans_error(paste("a sparse Matrix x is a graph (its affinity matrix), for kernel = \"knn\" or",
                                     "\"heat\"; to cluster its rows as points, pass as.matrix(x)"), 1L, call))
        }
        if (!is.null(data)) {
            stop(kkmeans_error("data is for the formula interface: kkmeans(~ ., data = df, centers = 3)", 1L, call))
        }
        if (!is.null(weights)) {
            stop(kkmeans_error(sprintf("weights: kernel=%s weighs every node by its degree; sample weights %s",
                                       kernel, "are not supported with it (pass weights = NULL)"), 1L, call))
        }
        x <- as_graph(x, call)
    } else if (inherits(x, "formula")) {
        design <- formula_design(x, data, na.action, call)
        x <- design$x
        omitted <- design$na.action
    } else {
        if (!is.null(data)) {
            stop(kkmeans_error("data is for the formula interface: kkmeans(~ ., data = df, centers = 3)", 1L, call))
        }
        if (!missing(na.action) && (is.matrix(x) || is.data.frame(x))) {
            x <- tryCatch(match.fun(na.action)(x),
                          error = function(e) stop(kkmeans_error(conditionMessage(e), 2L, call)))
            omitted <- attr(x, "na.action")
            attr(x, "na.action") <- NULL
        }
    }
    if (!is.null(omitted) && !is.null(weights) && is.numeric(weights) &&
        length(weights) == nrow(x) + length(omitted)) {
        weights <- weights[-as.integer(omitted)]
    }
    if (!is.null(omitted) && !is.null(init_labels) && length(init_labels) == nrow(x) + length(omitted)) {
        init_labels <- init_labels[-as.integer(omitted)]
    }
    if (!graph) x <- as_data_matrix(x, "x", call)
    n <- nrow(x)
    d <- ncol(x)
    if (!is.null(init_centres)) init_centres <- initial_centres(init_centres, x, call)
    if (!is.null(init_labels)) check_init_labels(init_labels, n, centers, call)

    extra <- with_refine(canonical_extra(extra, call), refine, call)
    # From a given start, one restart unless nstart says otherwise (stats::kmeans ignores
    # nstart then; here restarts 2.. seed as usual and the lowest objective wins).
    if ((!is.null(init_centres) || !is.null(init_labels)) && is.null(extra[["n_init"]])) extra[["n_init"]] <- 1L
    extra <- with_seed(extra)
    param_string <- param_string_of(centers, method, kernel, extra, call)

    if (!is.null(weights) && (!is.numeric(weights) || length(weights) != n)) {
        stop(kkmeans_error(sprintf("weights must be a numeric vector of length nrow(x) = %d", n), 1L, call))
    }

    model <- NativeModel()
    native_call(NativeModel_set_params(model, param_string), call)
    if (!is.null(init_centres)) {
        native_call(NativeModel_set_init_centres(model, row_major(init_centres), nrow(init_centres),
                                                 ncol(init_centres)), call)
    }
    if (!is.null(init_labels)) native_call(NativeModel_set_init_labels(model, as.integer(init_labels) - 1L), call)
    fit_native(model, x, weights, progress, call)

    fitted_object(model, x, n, d, weights, extra, centers, call, graph = graph, design = design, omitted = omitted)
}

# The library parameters given as named arguments (`...`), under their canonical keys (aliases
# such as nstart and iter.max mapped); k, method and kernel have arguments of their own.
canonical_extra <- function(extra, call) {
    if (length(extra) == 0L) return(extra)
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
    extra
}

# Without a seed, one drawn from R's generator so that set.seed() makes fits reproducible, as it
# does for stats::kmeans; object$params$seed records it.
with_seed <- function(extra) {
    if (is.null(extra$seed)) extra$seed <- sample.int(.Machine$integer.max, 1L)
    extra
}

# "k=... method=... kernel=... key=value ..." for the library (kkm_set_params).
param_string_of <- function(centers, method, kernel, extra, call) {
    params <- c(list(k = if (is.numeric(centers)) as.integer(centers) else "auto", method = method, kernel = kernel),
                extra)
    tryCatch(format_params(params), error = function(e) stop(kkmeans_error(conditionMessage(e), 1L, call)))
}

# centers given as k = (or one of its aliases) among the named arguments, e.g. kkmeans(x, k = "auto"):
# list(centers, extra without it); centers stays missing (NULL) otherwise.
centers_in_extra <- function(extra) {
    if (length(extra) > 0L && !is.null(names(extra))) {
        given <- which(names(extra) %in% c("k", names(.kkm_aliases)[.kkm_aliases == "k"]))
        if (length(given) == 1L) return(list(centers = extra[[given]], extra = extra[-given]))
    }
    list(centers = NULL, extra = extra)
}

# The fitted centres of a feature model (kkm_get_centres: nystrom, sketch, rff, heat) as a k x dim
# matrix, or NULL for a model without explicit centres.
model_centres <- function(model, k, dim, call) {
    if (dim <= 0) return(NULL)
    values <- tryCatch(native_call(NativeModel_centres_f64(model, k * dim), call),
                       kkmeans_invalid_argument = function(e) NULL)
    if (is.null(values)) return(NULL)
    matrix(values, nrow = k, ncol = dim, byrow = TRUE, dimnames = list(seq_len(k), NULL))
}

# The "kkmeans" object of a fitted native model. x: the n x d rows it was fitted on (for a stream,
# the last batch), or NULL when they are not in R (kkmeans_file): the sums of squares are then NA
# and feature_centers the model's centres. stream: NULL, or list(batches, rows, weighted) for
# kkmeans_partial_fit (its sizes count every batch; its feature_centers are the stream's centres).
fitted_object <- function(model, x, n, d, weights, extra, centers, call, graph = FALSE, design = NULL,
                          omitted = NULL, stream = NULL, ifault = NULL) {
    k <- native_call(NativeModel_k(model), call)
    labels <- native_call(NativeModel_labels(model, n), call) + 1L
    sizes <- native_call(NativeModel_cluster_sizes(model, k), call)
    if (if (is.null(stream)) is.null(weights) else !stream$weighted) sizes <- as.integer(round(sizes))

    # The parameters that shaped this fit, as it resolved them (method = "auto", n_init = "auto",
    # gamma = "auto", neighbors = "auto", ... report what the fit used).
    fitted_method <- native_call(NativeModel_get_param(model, "method"), call)
    fitted_kernel <- native_call(NativeModel_get_param(model, "kernel"), call)
    on_graph <- fitted_kernel %in% .kkm_graph_kernels
    keys <- unique(c("k", "method", "kernel", if (!on_graph) "gamma", if (fitted_method != "exact") "m", "n_init",
                     if (on_graph && !graph) c("neighbors", "graph"),
                     if (fitted_kernel == "heat") c("heat_t", "heat_rank"), names(extra)))
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
    if (is.null(x)) {
        ss <- list(withinss = rep(NA_real_, k), totss = NA_real_,
                   centers = model_centres(model, k, native_call(NativeModel_feature_dim(model), call), call))
    } else if (is.null(stream)) {
        ss <- sums_of_squares(model, x, labels, weights, k, resolved$method, resolved$kernel, extra, call)
    } else {
        own <- model_centres(model, k, native_call(NativeModel_feature_dim(model), call), call)
        ss <- sums_of_squares(model, x, labels, weights, k, resolved$method, resolved$kernel, extra, call,
                              model_centers = own)
        ss$centers <- own
    }
    iter <- native_call(NativeModel_iterations(model), call)
    max_iter <- parse_param_value(native_call(NativeModel_get_param(model, "max_iter"), call))
    if (!is.null(x) && !is.null(rownames(x))) names(labels) <- rownames(x)
    object <- structure(list(
        cluster = labels,
        totss = ss$totss,
        withinss = ss$withinss,
        tot.withinss = native_call(NativeModel_objective(model), call),
        betweenss = ss$totss - sum(ss$withinss),
        size = sizes,
        iter = iter,
        ifault = if (!is.null(ifault)) ifault else if (iter >= max_iter) 2L else 0L,
        method = resolved$method,
        kernel = resolved$kernel,
        params = resolved,
        n = n,
        d = d,
        colnames = if (is.null(x)) NULL else colnames(x),
        input = if (graph) "graph" else "points",
        timings = native_call(NativeModel_timings(model), call),
        search = search_table(model, searched, call),
        feature_centers = ss$centers,
        na.action = omitted,
        terms = design$terms,
        xlevels = design$xlevels,
        call = call,
        model_buffer = buffer,
        native = native
    ), class = "kkmeans")
    if (!is.null(stream)) object$stream <- stream
    attr(object, "model_buffer_error") <- buffer_error
    object
}

# ------------------------------------------------------------------ streams and files

# Clustering in batches (kkm_partial_fit; documented in man/kkmeans_partial_fit.Rd). object: NULL
# to start a stream (centers and the parameters as for kkmeans()), or the object of the previous
# batch (of kkmeans_partial_fit(), or of kkmeans() with method nystrom, sketch, rff or minibatch), whose
# parameters the stream keeps. The native model moves to the new object; the previous object
# rebuilds its own from its model buffer if it is used again, so it still predicts with the
# centres it had.
kkmeans_partial_fit <- function(object, x, centers, ..., method = "auto", kernel = "rbf", weights = NULL,
                                progress = getOption("kkmeans.progress", interactive())) {
    call <- match.call()
    extra <- list(...)
    if (is.null(object)) {
        if (missing(centers)) {
            given <- centers_in_extra(extra)
            centers <- given$centers
            extra <- given$extra
        }
        if (is.null(centers) || !is_centers(centers)) {
            stop(kkmeans_error(paste("centers must be the number of clusters (a single whole number or \"auto\");",
                                     "a stream seeds its centres on its first batch"), 1L, call))
        }
        extra <- with_seed(canonical_extra(extra, call))
        x <- as_data_matrix(x, "x", call)
        model <- NativeModel()
        native_call(NativeModel_set_params(model, param_string_of(centers, method, kernel, extra, call)), call)
        stream <- list(batches = 0L, rows = 0, weighted = FALSE)
        restore <- function() NULL
    } else {
        if (!inherits(object, "kkmeans")) {
            stop(kkmeans_error(sprintf("object must be NULL (a new stream) or a \"kkmeans\" object, not %s",
                                       class(object)[1L]), 1L, call))
        }
        if (!missing(centers) || length(extra) > 0L || !missing(method) || !missing(kernel)) {
            stop(kkmeans_error(paste("a stream keeps the parameters of its first batch: give object and x (and",
                                     "weights) only, or start a new stream with kkmeans_partial_fit(NULL, x,",
                                     "centers, ...)"), 1L, call))
        }
        if (identical(object$input, "graph")) {
            stop(kkmeans_error("a fit on a sparse graph cannot take more batches", 1L, call))
        }
        x <- design_matrix(object, x, "x", call)
        centers <- object$params$k
        extra <- object$params[setdiff(names(object$params), c("k", "method", "kernel"))]
        stream <- if (is.null(object$stream)) list(batches = 1L, rows = as.double(object$n), weighted = NA) else object$stream
        if (is.na(stream$weighted)) stream$weighted <- !is.integer(object$size)
        model <- native_model(object, call)
        # The model moves to the new object (on success): the previous one rebuilds its own
        # from its buffer when used again.
        env <- object$native
        env$model <- NULL
        restore <- function() env$model <- model
    }
    if (!is.null(weights) && (!is.numeric(weights) || length(weights) != nrow(x))) {
        restore()
        stop(kkmeans_error(sprintf("weights must be a numeric vector of length nrow(x) = %d", nrow(x)), 1L, call))
    }
    done <- FALSE
    on.exit(if (!done) restore())
    listened_fit(progress, call, function(listener) {
        if (is.null(weights)) {
            NativeModel_partial_fit_progress(model, row_major(x), nrow(x), ncol(x), listener)
        } else {
            NativeModel_partial_fit_weighted_progress(model, row_major(x), nrow(x), ncol(x), as.double(weights),
                                                      listener)
        }
    })
    done <- TRUE
    stream <- list(batches = stream$batches + 1L, rows = stream$rows + nrow(x),
                   weighted = stream$weighted || !is.null(weights))
    design <- if (is.null(object)) NULL else list(terms = object$terms, xlevels = object$xlevels)
    fitted_object(model, x, nrow(x), ncol(x), weights, extra, centers, call, design = design,
                  stream = stream, ifault = if (stream$batches > 1L) object$ifault else NULL)
}

# Fits the rows of a raw float32 file (kkm_fit_file; documented in man/kkmeans_file.Rd): the
# library maps the file and reads it in place, so the rows never enter R.
kkmeans_file <- function(path, dims, centers, ..., method = "auto", kernel = "rbf", weights = NULL,
                         algorithm = NULL, progress = getOption("kkmeans.progress", interactive())) {
    call <- match.call()
    extra <- list(...)
    if (!is.character(path) || length(path) != 1L || is.na(path)) {
        stop(kkmeans_error("path must be a single file name", 1L, call))
    }
    if (!is.numeric(dims) || length(dims) != 1L || is.na(dims) || dims < 1 || dims != round(dims)) {
        stop(kkmeans_error("dims must be the number of columns of the file's rows (a whole number >= 1)", 1L, call))
    }
    if (missing(centers)) {
        given <- centers_in_extra(extra)
        centers <- given$centers
        extra <- given$extra
    }
    init_centres <- NULL
    if (!is.null(centers) && (is.matrix(centers) || is.data.frame(centers)) && NROW(centers) * NCOL(centers) > 1L) {
        init_centres <- as_data_matrix(centers, "centers", call)
        if (ncol(init_centres) != dims) {
            stop(kkmeans_error(sprintf("centers has %d columns but the file's rows have dims = %s",
                                       ncol(init_centres), format(dims)), 1L, call))
        }
        centers <- nrow(init_centres)
    }
    if (is.null(centers) || !is_centers(centers)) {
        stop(kkmeans_error(paste("centers must be the number of clusters (a single whole number or \"auto\") or",
                                 "a k x dims matrix of initial centres"), 1L, call))
    }
    refine <- refine_of_algorithm(algorithm, call)
    extra <- with_refine(canonical_extra(extra, call), refine, call)
    if (!is.null(init_centres) && is.null(extra[["n_init"]])) extra[["n_init"]] <- 1L
    extra <- with_seed(extra)
    if (!is.null(weights) && !is.numeric(weights)) {
        stop(kkmeans_error("weights must be a numeric vector, one weight per row of the file", 1L, call))
    }
    model <- NativeModel()
    native_call(NativeModel_set_params(model, param_string_of(centers, method, kernel, extra, call)), call)
    if (!is.null(init_centres)) {
        native_call(NativeModel_set_init_centres(model, row_major(init_centres), nrow(init_centres),
                                                 ncol(init_centres)), call)
    }
    file <- path.expand(path)
    listened_fit(progress, call, function(listener) {
        if (is.null(weights)) {
            NativeModel_fit_file_progress(model, file, dims, listener)
        } else {
            NativeModel_fit_file_weighted_progress(model, file, dims, as.double(weights), listener)
        }
    })
    n <- native_call(NativeModel_n_train(model), call)
    fitted_object(model, NULL, n, as.integer(dims), weights, extra, centers, call)
}

# TRUE for a valid centers argument: a single whole number or "auto".
is_centers <- function(centers) {
    if (identical(centers, "auto")) return(TRUE)
    is.numeric(centers) && length(centers) == 1L && !is.na(centers) && centers == round(centers)
}

# extra with the refine that algorithm asked for; refine given there too is an error.
with_refine <- function(extra, refine, call) {
    if (is.null(refine)) return(extra)
    if (!is.null(extra[["refine"]])) {
        stop(kkmeans_error("give algorithm or refine, not both (algorithm = \"Hartigan-Wong\" is refine = \"hartigan\")",
                           1L, call))
    }
    extra[["refine"]] <- refine
    extra
}

# stats::kmeans' algorithm as the library's refine: NULL (not given: the library's default),
# "hartigan" for "Hartigan-Wong" (Lloyd, then Hartigan's single-point transfers), "none" for
# "Lloyd" and "Forgy" (plain Lloyd iterations from a k-means++ or given start). "MacQueen"
# (centres updated after each point) is an error: the nearest the library has is
# method = "minibatch".
refine_of_algorithm <- function(algorithm, call) {
    if (is.null(algorithm)) return(NULL)
    choices <- c("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")
    if (!is.character(algorithm) || length(algorithm) != 1L || is.na(algorithm) ||
        is.na(hit <- pmatch(algorithm, choices))) {
        stop(kkmeans_error(sprintf("algorithm must be one of %s", paste0("\"", choices, "\"", collapse = ", ")),
                           1L, call))
    }
    switch(choices[hit],
           "Hartigan-Wong" = "hartigan",
           "Lloyd" = , "Forgy" = "none",
           "MacQueen" = stop(kkmeans_error(paste(
               "algorithm = \"MacQueen\" (centres updated after each point) is not available: use \"Lloyd\"",
               "(or \"Forgy\": plain Lloyd iterations), \"Hartigan-Wong\" (Lloyd, then Hartigan's transfers),",
               "or method = \"minibatch\" for online mini-batch updates"), 1L, call)))
}

# The k x d initial centres of centers = <matrix or data frame>, as a numeric matrix with x's
# columns (reordered by name when both have the same column names); every value finite, the
# rows distinct (as stats::kmeans asks). Errors count rows and columns from 1.
initial_centres <- function(centres, x, call) {
    if (is_graph_input(x)) {
        stop(kkmeans_error("initial centres (centers = a matrix) need points, but x is a graph", 1L, call))
    }
    centres <- as_data_matrix(centres, "centers", call)
    if (!is.null(colnames(x)) && !is.null(colnames(centres)) && ncol(centres) == ncol(x) &&
        setequal(colnames(centres), colnames(x))) {
        centres <- centres[, colnames(x), drop = FALSE]
    }
    if (ncol(centres) != ncol(x)) {
        stop(kkmeans_error(sprintf("centers has %d columns but x has %d (one initial centre per row, in x's columns)",
                                   ncol(centres), ncol(x)), 1L, call))
    }
    if (nrow(centres) > nrow(x)) {
        stop(kkmeans_error(sprintf("centers has %d rows (initial centres) but x has only %d rows",
                                   nrow(centres), nrow(x)), 1L, call))
    }
    twin <- anyDuplicated(centres)
    if (twin > 0L) {
        earlier <- t(centres[seq_len(twin - 1L), , drop = FALSE]) == centres[twin, ]
        first <- which(colSums(earlier) == ncol(centres))[1L]
        stop(kkmeans_error(sprintf("centers: rows %d and %d are the same point (initial centres must be distinct)",
                                   first, twin), 1L, call))
    }
    centres
}

# An initial clustering (init =) as integer codes 1..k: whole numbers, or a factor / strings
# (their level numbers; attribute levels_count: the number of levels). No NA.
init_label_codes <- function(labels, call) {
    levels_count <- 0L
    if (is.character(labels)) labels <- factor(labels)
    if (is.factor(labels)) {
        levels_count <- nlevels(labels)
        labels <- as.integer(labels)
    }
    if (!(is.numeric(labels) || is.logical(labels)) || length(labels) == 0L) {
        stop(kkmeans_error(paste("init must be an initial clustering (one cluster 1..k per row, or a factor) or the",
                                 "seeding \"kmeans++\" / \"random\""), 1L, call))
    }
    bad <- which(is.na(labels) | labels != round(labels))
    if (length(bad) > 0L) {
        stop(kkmeans_error(sprintf("init[%d] = %s is not a cluster number (whole numbers 1..k, no NA)", bad[1L],
                                   format(labels[bad[1L]])), 1L, call))
    }
    structure(as.integer(labels), levels_count = levels_count)
}

# init's clusters against the data: one per row, each in 1..k. Errors count from 1.
check_init_labels <- function(labels, n, centers, call) {
    if (length(labels) != n) {
        stop(kkmeans_error(sprintf("init has %d values but x has %d rows (one initial cluster per row)",
                                   length(labels), n), 1L, call))
    }
    k <- if (is.numeric(centers)) centers else Inf
    bad <- which(labels < 1L | labels > k)
    if (length(bad) > 0L) {
        stop(kkmeans_error(sprintf("init[%d] = %d is not a cluster in 1..%s", bad[1L], labels[bad[1L]],
                                   format(k)), 1L, call))
    }
}

# ------------------------------------------------------------------ formula interface

# The model matrix of a one-sided formula over `data` (kernlab's formula interface): factors
# become treatment-contrast columns, the intercept is dropped, rows with a missing value go
# through na.action (model.frame). Returns list(x, terms, xlevels, na.action).
formula_design <- function(formula, data, na.action, call) {
    if (length(formula) == 3L) {
        stop(kkmeans_error(paste("kkmeans() clusters without a response: use a one-sided formula such as",
                                 "~ . or ~ a + b"), 1L, call))
    }
    fail <- function(e) stop(kkmeans_error(paste0("formula: ", conditionMessage(e)), 1L, call))
    mf <- tryCatch(stats::model.frame(formula, data = if (is.null(data)) environment(formula) else data,
                                      na.action = na.action, drop.unused.levels = TRUE),
                   error = function(e) {
                       if (grepl("missing values", conditionMessage(e))) {
                           stop(kkmeans_error(paste0("formula: ", conditionMessage(e)), 2L, call))
                       }
                       fail(e)
                   })
    if (nrow(mf) == 0L) stop(kkmeans_error("formula: no rows left after na.action", 2L, call))
    terms <- attr(mf, "terms")
    x <- tryCatch(stats::model.matrix(terms, mf), error = fail)
    x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
    attr(x, "assign") <- NULL
    attr(x, "contrasts") <- NULL
    list(x = x, terms = terms, xlevels = stats::.getXlevels(terms, mf), na.action = attr(mf, "na.action"))
}

# New rows as the model sees them: for a formula fit the model matrix of `newdata` under the
# fit's terms, otherwise a numeric matrix whose columns are matched by name to the training
# columns when both have the same names. A sparse Matrix is densified (for a graph fit:
# affinity rows, n_new x n_train). Missing values are an error naming the cell unless
# missing_ok (then they stay: predict's na.action handles them).
design_matrix <- function(object, newdata, what, call, missing_ok = FALSE) {
    if (!is.null(object$terms)) {
        if (!is.data.frame(newdata) && !is.list(newdata)) newdata <- as.data.frame(newdata)
        terms <- stats::delete.response(object$terms)
        mf <- tryCatch(stats::model.frame(terms, newdata, na.action = stats::na.pass, xlev = object$xlevels),
                       error = function(e) stop(kkmeans_error(paste0(what, ": ", conditionMessage(e)), 1L, call)))
        x <- stats::model.matrix(terms, mf)
        x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
        attr(x, "assign") <- NULL
        attr(x, "contrasts") <- NULL
    } else {
        x <- if (is_graph_input(newdata)) as.matrix(newdata) else newdata
    }
    x <- as_data_matrix(x, what, call, missing_ok)
    if (!is.null(object$colnames) && !is.null(colnames(x)) && setequal(colnames(x), object$colnames) &&
        ncol(x) == length(object$colnames)) {
        x <- x[, object$colnames, drop = FALSE]
    }
    if (ncol(x) != object$d) {
        stop(kkmeans_error(sprintf("%s has %d columns but the model was fitted on %d", what, ncol(x), object$d),
                           1L, call))
    }
    x
}

# ------------------------------------------------------------------ sums of squares

# Rows per block of a pass over the feature map: about 4 million doubles of features.
feature_block_rows <- function(dim) max(1L, as.integer(floor(4194304 / max(1, dim))))

# The features of rows `rows` of x (kkm_transform), as a length(rows) x dim matrix. For a
# graph, x's rows are the training nodes' affinity rows (each is its own node).
features_of <- function(model, x, rows, dim, call) {
    values <- native_call(NativeModel_transform_f64(model, row_major(dense_rows(x, rows)), length(rows),
                                                    ncol(x), length(rows) * dim), call)
    matrix(values, nrow = length(rows), ncol = dim, byrow = TRUE)
}

# stats::kmeans' totss and withinss in the kernel's feature space, and the cluster means there
# (the object's feature_centers). Returns list(withinss, totss, centers).
#
# nystrom, sketch, rff and kernel = "heat": in the explicit feature space of the fit
# (kkm_transform: k-means on these features is what the fit solved; heat's are its heat_rank
# spectral features), around the weighted means of the clusters' features and of all
# features. Two passes in blocks of rows (one when the features fit in a block).
# exact with the other kernels: the objective of one-cluster exact fits with the fit's kernel
# (gamma as resolved): on each cluster's rows (its withinss) and on all rows (totss), i.e. the
# squared kernel-space distances to the kernel means, sum_i w_i K_ii - sum_ij w_i w_j K_ij / W.
# model_centers: the model's own centres when they are not the clusters' means (a stream's running
# means), for nystrom's residual below.
# minibatch (no feature map; an exact pass would cost the n^2 kernel the method avoids) and
# kernel = "knn" (no feature map; its kernel is defined by the graph of all rows, so a fit on
# a cluster's rows would measure another kernel): NA.
sums_of_squares <- function(model, x, labels, weights, k, method, kernel, extra, call, model_centers = NULL) {
    n <- nrow(x)
    w <- if (is.null(weights)) rep(1, n) else as.double(weights)
    if (method == "exact" && !(kernel %in% .kkm_graph_kernels)) {
        return(list(withinss = vapply(seq_len(k), function(j) exact_one_cluster_ss(model, x, which(labels == j), w,
                                                                                  kernel, extra, call), 0),
                    totss = exact_one_cluster_ss(model, x, seq_len(n), w, kernel, extra, call),
                    centers = NULL))
    }
    dim <- native_call(NativeModel_feature_dim(model), call)
    if (dim <= 0) return(list(withinss = rep(NA_real_, k), totss = NA_real_, centers = NULL))
    block <- feature_block_rows(max(dim, ncol(x)))
    starts <- seq(1L, n, by = block)
    blocks <- lapply(starts, function(s) s:min(n, s + block - 1L))
    cached <- NULL
    sums <- matrix(0, k, dim)
    for (rows in blocks) {
        f <- features_of(model, x, rows, dim, call)
        if (length(blocks) == 1L) cached <- f
        sums <- sums + rowsum(f * w[rows], factor(labels[rows], levels = seq_len(k)), reorder = TRUE)
    }
    cluster_w <- vapply(seq_len(k), function(j) sum(w[labels == j]), 0)
    centers <- sums / ifelse(cluster_w > 0, cluster_w, NA_real_)
    grand <- colSums(sums) / sum(w)
    withinss <- numeric(k)
    totss <- 0
    for (rows in blocks) {
        f <- if (is.null(cached)) features_of(model, x, rows, dim, call) else cached
        residual <- if (method == "nystrom") {
            nystrom_residual(model, x, rows, f, if (is.null(model_centers)) centers else model_centers, call)
        } else {
            0
        }
        own <- rowSums((f - centers[labels[rows], , drop = FALSE])^2) + residual
        withinss <- withinss + vapply(seq_len(k), function(j) sum((w[rows] * own)[labels[rows] == j]), 0)
        totss <- totss + sum(w[rows] * (rowSums(sweep(f, 2L, grand)^2) + residual))
    }
    dimnames(centers) <- list(seq_len(k), NULL)
    list(withinss = withinss, totss = totss, centers = centers)
}

# K(x,x) - |f(x)|^2 of rows `rows` of x (features f): the part of each row that Nystrom
# landmarks cannot represent, the same for every centre. Nystrom distances are kernel
# distances to centres in the landmarks' span, the feature-space distance plus this; it is
# taken from kkm_assign's distance to the nearest centre less the feature-space distance to
# it (exact when the fitted centres are the clusters' means, as after a converged Lloyd).
nystrom_residual <- function(model, x, rows, f, centers, call) {
    near <- native_call(NativeModel_assign_distances_f64(model, row_major(x[rows, , drop = FALSE]), length(rows),
                                                         ncol(x), length(rows), length(rows)), call)
    pmax(0, near$distances - rowSums((f - centers[near$labels + 1L, , drop = FALSE])^2))
}

# Sum of w_i * squared kernel-space distance of rows `rows` to their weighted kernel mean:
# the objective of a one-cluster exact fit with the fitted model's kernel and its resolved
# parameters (threads, isa and max_memory_mb as given). 0 for no rows.
exact_one_cluster_ss <- function(model, x, rows, w, kernel, extra, call) {
    if (length(rows) == 0L) return(0)
    params <- list(k = 1L, method = "exact", kernel = kernel, n_init = 1L, max_iter = 1L)
    for (key in c("gamma", "degree", "coef0")) {
        params[[key]] <- native_call(NativeModel_get_param(model, key), call)
    }
    kept <- intersect(names(extra), c("threads", "isa", "max_memory_mb"))
    params[kept] <- extra[kept]
    one <- NativeModel()
    on.exit(delete_NativeModel(one))
    native_call(NativeModel_set_params(one, format_params(params)), call)
    sub <- if (kernel == "precomputed") x[rows, rows, drop = FALSE] else x[rows, , drop = FALSE]
    fit_native(one, sub, if (all(w == 1)) NULL else w[rows], NULL, call)
    native_call(NativeModel_objective(one), call)
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
    cat(sprintf("\nObjective (tot.withinss, in kernel space): %s after %d iterations%s\n",
                format(x$tot.withinss), as.integer(x$iter),
                if (identical(x$ifault, 2L)) " (max_iter reached: ifault = 2)" else ""))
    if (is.finite(x$totss) && x$totss > 0) {
        cat("Within cluster sum of squares by cluster (feature space):\n")
        print(x$withinss, ...)
        cat(sprintf(" (between_SS / total_SS = %5.1f %%)\n", 100 * x$betweenss / x$totss))
    }
    if (!is.null(x$na.action)) cat(sprintf("(%s)\n", stats::naprint(x$na.action)))
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
        input = object$input,
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
    if (identical(x$input, "graph")) {
        cat(sprintf("Kernel k-means: %d clusters of a graph of %d nodes\n", x$k, x$n))
    } else {
        cat(sprintf("Kernel k-means: %d clusters of %d points in %d dimensions\n", x$k, x$n, x$d))
    }
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

# Cluster of each training row (1-based), as stats::fitted(<kmeans>, method = "classes"); with
# na.action = na.exclude, NA for the rows it set aside (stats::napredict).
fitted.kkmeans <- function(object, method = c("classes", "centers"), ...) {
    method <- match.arg(method)
    if (method == "centers") {
        stop(kkmeans_error("kernel k-means has no cluster centres in input space; use method = \"classes\"", 1L,
                           sys.call()))
    }
    stats::napredict(object$na.action, object$cluster)
}

# Nearest fitted cluster (1-based) of each row of newdata, or (type = "distance") the n x k
# matrix of squared distances of each row to every fitted centre (kkm_distances), measured as
# the library measures tot.withinss, for every method; without newdata, the training clusters.
# Rows with missing values go through na.action (predict_missing); by default (NULL) na.pass
# for a formula fit, as stats::predict.lm, and an error naming the cell for a matrix fit, as
# kkmeans() gives one for a matrix without na.action.
predict.kkmeans <- function(object, newdata, type = c("class", "distance"), na.action = NULL, ...) {
    call <- sys.call()
    type <- match.arg(type)
    if (missing(newdata) || is.null(newdata)) {
        if (type == "distance") {
            stop(kkmeans_error(paste("predict(type = \"distance\") needs newdata (the object keeps no training",
                                     "data): predict(fit, x, type = \"distance\")"), 1L, call))
        }
        return(fitted(object))
    }
    if (is.null(na.action) && !is.null(object$terms)) na.action <- stats::na.pass
    x <- design_matrix(object, newdata, "newdata", call, missing_ok = !is.null(na.action))
    predict_missing(x, na.action, call, function(rows) predict_rows(object, rows, type, call))
}

# predict() of the complete rows of x: na.pass (or an na.action that keeps every row) gives
# NA (a row of NA for distances) where a row has a missing value; na.omit drops those rows
# (their numbers in the result's "na.action" attribute), na.exclude pads them with NA
# (stats::napredict); na.fail, or no na.action, is an error naming the first missing cell.
predict_missing <- function(x, na.action, call, predict_rows) {
    incomplete <- which(rowSums(is.na(x)) > 0L)
    if (length(incomplete) == 0L) return(predict_rows(x))
    kept <- if (is.null(na.action)) NULL else tryCatch(match.fun(na.action)(x), error = function(e) NULL)
    if (is.null(kept)) as_data_matrix(x, "newdata", call)  # stops, naming the cell
    omitted <- attr(kept, "na.action")
    result <- predict_rows(x[-incomplete, , drop = FALSE])
    if (!is.null(omitted)) {
        result <- stats::napredict(omitted, result)
        if (inherits(omitted, "omit")) attr(result, "na.action") <- omitted
        return(result)
    }
    pad_rows(result, incomplete, nrow(x), rownames(x))
}

# A result for the complete rows (vector or matrix) put back among NA at the incomplete ones.
pad_rows <- function(result, incomplete, n, names) {
    if (is.matrix(result)) {
        full <- matrix(NA_real_, n, ncol(result), dimnames = list(names, colnames(result)))
        full[-incomplete, ] <- result
        return(full)
    }
    full <- rep(NA_integer_, n)
    full[-incomplete] <- result
    if (!is.null(names)) names(full) <- names
    full
}

# predict() of the rows of a design matrix without missing values (none at all: a 0-row result).
predict_rows <- function(object, x, type, call) {
    model <- native_model(object, call)
    if (type == "class") {
        if (nrow(x) == 0L) return(integer(0L))
        return(assign_rows(object, x, call))
    }
    k <- native_call(NativeModel_k(model), call)
    if (nrow(x) == 0L) return(matrix(NA_real_, 0L, k, dimnames = list(NULL, seq_len(k))))
    values <- native_call(NativeModel_distances_f64(model, row_major(x), nrow(x), ncol(x), nrow(x) * k), call)
    matrix(values, nrow = nrow(x), ncol = k, byrow = TRUE, dimnames = list(rownames(x), seq_len(k)))
}

# Nearest cluster (1-based) of the rows of a design matrix (kkm_assign), named by its row names.
assign_rows <- function(object, x, call) {
    model <- native_model(object, call)
    labels <- native_call(NativeModel_assign_f64(model, row_major(x), nrow(x), ncol(x), nrow(x)), call) + 1L
    if (!is.null(rownames(x))) names(labels) <- rownames(x)
    labels
}

# The points to draw: a 2-column matrix (the data themselves for d = 2, their first two
# principal components for d > 2, the values against their index for d = 1) with axis labels.
plot_coordinates <- function(x) {
    names <- colnames(x)
    if (ncol(x) == 1L) {
        return(list(xy = cbind(seq_len(nrow(x)), x[, 1L]), xlab = "row", ylab = if (is.null(names)) "x1" else names[1L]))
    }
    if (ncol(x) == 2L) {
        return(list(xy = x, xlab = if (is.null(names)) "x1" else names[1L], ylab = if (is.null(names)) "x2" else names[2L]))
    }
    pca <- stats::prcomp(x, center = TRUE, scale. = FALSE, rank. = 2L)
    share <- 100 * pca$sdev^2 / sum(pca$sdev^2)
    list(xy = pca$x[, 1:2, drop = FALSE],
         xlab = sprintf("PC1 (%.0f%% of the variance of the %d columns)", share[1L], ncol(x)),
         ylab = sprintf("PC2 (%.0f%%)", share[2L]))
}

# Scatter plot of the data coloured by cluster (predict()): 2-D data as they are, wider data
# on their first two principal components. The object keeps no training data: without `data`
# it draws what it has, the clusters' sizes with their within-cluster sums of squares, and
# says how to get the scatter plot.
plot.kkmeans <- function(x, data, col = NULL, pch = 19, main = NULL, xlab = NULL, ylab = NULL, legend = TRUE, ...) {
    call <- sys.call()
    k <- length(x$size)
    palette <- if (is.null(col)) grDevices::hcl.colors(max(k, 2L), "Dark 3")[seq_len(k)] else rep_len(col, k)
    title <- if (is.null(main)) sprintf("kkmeans: %d clusters (%s, %s kernel)", k, x$method, x$kernel) else main
    if (missing(data) || is.null(data)) {
        heights <- stats::setNames(x$size, seq_len(k))
        mids <- graphics::barplot(heights, col = palette, main = title,
                                  xlab = if (is.null(xlab)) "cluster" else xlab,
                                  ylab = if (is.null(ylab)) "size" else ylab,
                                  sub = "no data kept in the object: plot(fit, x) draws the points", ...)
        if (all(is.finite(x$withinss))) {
            graphics::text(mids, heights / 2, sprintf("withinss\n%.3g", x$withinss), cex = 0.8)
        }
        return(invisible(NULL))
    }
    m <- design_matrix(x, data, "data", call)
    labels <- assign_rows(x, m, call)  # for the training data these are fitted(x)
    coords <- plot_coordinates(m)
    graphics::plot(coords$xy[, 1L], coords$xy[, 2L], col = palette[labels], pch = pch, main = title,
                   xlab = if (is.null(xlab)) coords$xlab else xlab,
                   ylab = if (is.null(ylab)) coords$ylab else ylab, ...)
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
