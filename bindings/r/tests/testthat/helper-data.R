# Two concentric rings (radii 1 and 4) in 2-D with Gaussian noise: plain k-means cannot
# separate them, kernel k-means with an rbf kernel of gamma = ring_gamma can: with 150 points
# per ring and 5 restarts (nstart = 5) it found the rings (ARI >= 0.95) for 40 of 40 seeds,
# exact and nystrom alike. With fewer points, one restart, or a more local kernel (gamma >= 1,
# where splitting the outer ring lowers the objective) it often does not.
make_rings <- function(n_per = 150L, noise = 0.1, seed = 1L, outer = 4) {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(seed)
    angle <- runif(2L * n_per, 0, 2 * pi)
    radius <- rep(c(1, outer), each = n_per)
    x <- cbind(x1 = radius * cos(angle) + rnorm(2L * n_per, sd = noise),
               x2 = radius * sin(angle) + rnorm(2L * n_per, sd = noise))
    list(x = x, truth = rep(1:2, each = n_per))
}

# Adjusted Rand index in plain R (Hubert & Arabie), to check the library's.
ari_r <- function(a, b) {
    tab <- table(a, b)
    comb2 <- function(v) sum(v * (v - 1) / 2)
    index <- comb2(tab)
    rows <- comb2(rowSums(tab))
    cols <- comb2(colSums(tab))
    expected <- rows * cols / comb2(length(a))
    (index - expected) / ((rows + cols) / 2 - expected)
}

ring_gamma <- 0.4
