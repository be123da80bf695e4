// Counter-based random numbers: every random choice is a pure function of (seed, stream,
// counter), so streams can be tied to data blocks and results never depend on threads.
#pragma once

#include <cmath>
#include <cstdint>

namespace kkm {

/// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Named streams, so that adding a random choice to one stage never shifts another's.
enum class Stream : uint64_t {
    landmarks = 1,
    seeding = 2,
    relocation = 3,
    sketch = 4,           ///< the sketch matrix S of method=sketch
    random_features = 5,  ///< W and b of method=rff
    leverage = 6,         ///< the uniform sub-sample behind ridge leverage scores
    batches = 7,          ///< mini-batch draws
    search = 8,           ///< gamma=search / k=auto: the subsample and its halves
    graph = 9,            ///< the graph kernels: NN-descent's draws, the Lanczos start vector
};

/// A sequential generator over one (seed, stream, sub) triple.
class Rng {
public:
    Rng(uint64_t seed, Stream stream, uint64_t sub = 0)
        : key_(mix64(mix64(seed ^ 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(stream) << 32) ^ sub)) {}

    uint64_t next_u64() { return mix64(key_ + 0x9e3779b97f4a7c15ULL * ++counter_); }

    /// Uniform double in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

    /// Uniform integer in [0, n) (n > 0), by rejection so there is no modulo bias.
    uint64_t below(uint64_t n) {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t r;
        do {
            r = next_u64();
        } while (r >= limit);
        return r % n;
    }

    /// Moves past `count` draws of next_u64 (uniform), as if they had been made.
    void skip(uint64_t count) { counter_ += count; }

private:
    uint64_t key_;
    uint64_t counter_ = 0;
};

/// The one seeding rule of restarts (n_init): restart r draws `stream` from sub-stream
/// (r << 32) | sub, where sub tells apart the draws of one restart (the seeding sample, the
/// i-th mini-batch). Restart 0 is Rng(seed, stream, sub) itself, so n_init = 1 draws what a
/// fit without restarts draws, and restart r of every method differs only by r.
inline Rng restart_rng(uint64_t seed, Stream stream, uint64_t restart, uint64_t sub = 0) {
    return Rng(seed, stream, (restart << 32) | sub);
}

}  // namespace kkm
