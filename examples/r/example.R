# Kernel k-means in R: two concentric rings that plain k-means cannot separate.
#
#   Rscript examples/r/example.R            (with the fastkkm package installed)
#   Rscript examples/r/example.R rings.pdf  (also plots the clusters into rings.pdf)
#
# See bindings/r/README.md for installing the package.
library(fastkkm)

args <- commandArgs(trailingOnly = TRUE)

# 300 points on two rings of radii 1 and 4 with a little Gaussian noise.
set.seed(2024)
n_per <- 150
angle <- runif(2 * n_per, 0, 2 * pi)
radius <- rep(c(1, 4), each = n_per)
x <- data.frame(x1 = radius * cos(angle) + rnorm(2 * n_per, sd = 0.1),
                x2 = radius * sin(angle) + rnorm(2 * n_per, sd = 0.1))
ring <- rep(c("inner", "outer"), each = n_per)

cat("kkmeans library", kkmeans_version(), "\n\n")

# Plain k-means splits the plane in two halves ...
plain <- kmeans(x, 2, nstart = 5)
cat(sprintf("stats::kmeans:           adjusted Rand index vs rings = %.3f\n",
            adjusted_rand_index(plain$cluster, ring)))

# ... kernel k-means with an rbf kernel finds the rings, exactly or with Nystrom landmarks.
# The library's defaults (gamma = "auto", nstart = "auto"): nothing hand-picked.
fit <- kkmeans(x, 2, method = "exact", kernel = "rbf")
cat(sprintf("kkmeans (exact, rbf):    adjusted Rand index vs rings = %.3f\n",
            adjusted_rand_index(fitted(fit), ring)))
approx <- kkmeans(x, 2, method = "nystrom", kernel = "rbf", m = 100)
cat(sprintf("kkmeans (nystrom, m=100): adjusted Rand index vs rings = %.3f\n\n",
            adjusted_rand_index(fitted(approx), ring)))

print(fit)
cat("\n")
print(table(cluster = fitted(fit), ring = ring))

# New points are assigned to the nearest cluster; a saved model keeps working.
new_points <- data.frame(x1 = c(0.9, -4.1, 0), x2 = c(0.1, 0.2, 3.9))
file <- tempfile(fileext = ".rds")
saveRDS(fit, file)
restored <- readRDS(file)
cat("\nclusters of (0.9, 0.1), (-4.1, 0.2), (0, 3.9):", predict(restored, new_points), "\n")
stopifnot(identical(predict(restored, new_points), predict(fit, new_points)))

if (length(args) >= 1) {
    grDevices::pdf(args[1])
    plot(fit, x)
    grDevices::dev.off()
    cat("plot written to", args[1], "\n")
}
