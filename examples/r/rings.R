# The picture of README.md: two nested rings clustered by linear k-means and by kernel k-means,
# side by side, from the package's own fits.
#
#   R_LIBS=/tmp/rlib Rscript examples/r/rings.R docs/rings.png
#
# Linear k-means is fastkkm's exact fit with kernel = "linear" (the same as stats::kmeans);
# kernel k-means is the exact fit with an rbf kernel. Each panel's title gives the adjusted
# Rand index against the true rings.
library(fastkkm)

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1L) args[1L] else "rings.png"

set.seed(2024)
n_per <- 250
angle <- runif(2 * n_per, 0, 2 * pi)
radius <- rep(c(1, 4), each = n_per)
x <- cbind(x1 = radius * cos(angle) + rnorm(2 * n_per, sd = 0.15),
           x2 = radius * sin(angle) + rnorm(2 * n_per, sd = 0.15))

linear <- kkmeans(x, 2, method = "exact", kernel = "linear", nstart = 5, seed = 1)
rbf <- kkmeans(x, 2, method = "exact", kernel = "rbf", seed = 1)  # gamma and nstart: the defaults
ari <- function(fit) adjusted_rand_index(fitted(fit), radius)
cat(sprintf("linear kernel: ARI %.3f   rbf kernel: ARI %.3f\n", ari(linear), ari(rbf)))

grDevices::png(out, width = 1200, height = 600, res = 110)
old <- graphics::par(mfrow = c(1, 2), mar = c(4, 4, 3, 1))
colours <- c("#D55E00", "#0072B2")
plot(linear, x, col = colours, pch = 20, asp = 1, legend = FALSE,
     main = sprintf("linear k-means: ARI %.2f", ari(linear)), cex.main = 1.1)
plot(rbf, x, col = colours, pch = 20, asp = 1, legend = FALSE,
     main = sprintf("kernel k-means (rbf): ARI %.2f", ari(rbf)), cex.main = 1.1)
graphics::par(old)
grDevices::dev.off()
cat("wrote", out, "\n")
