// make_corpus DIR: writes the seed corpus of the fuzz targets under DIR/<target>/ (the
// committed fuzz/corpus/ was made with it; rerun it after a model format change):
//   fuzz_params/  valid parameter strings: every key, aliases, enum values, auto/none, edges
//   fuzz_load/    a saved model of every method in seed_params() (fuzz_common.h), prefixed
//                 with the mode byte 1 (resealed), plus one raw (mode 0) and two patched
//                 (mode 2) inputs
//   fuzz_fit/     pseudo-random byte strings of 64..1024 bytes (FuzzedDataProvider input)
//   fuzz_shapes/  pseudo-random byte strings of 8..64 bytes (FuzzedDataProvider input)
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_common.h"

using namespace kkm_fuzz;

namespace {

void write(const std::string& path, const void* data, size_t size) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
        die("cannot write %s", path.c_str());
}

void make_dir(const std::string& path) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) die("cannot create %s", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    make_dir(dir);

    // ---------------------------------------------------------------- fuzz_params
    make_dir(dir + "/fuzz_params");
    const char* params[] = {
        "k=3",
        "k=10 method=nystrom kernel=rbf gamma=auto",
        "method=exact kernel=laplacian gamma=0.5",
        "kernel=polynomial degree=3 coef0=-1.5 gamma=1e-3",
        "kernel=linear,method=sketch,sketch=ros",
        "method=sketch sketch=gaussian m=auto",
        "method=sketch\tsketch=identity\nm=7",
        "method=rff m=256 kernel=laplacian",
        "method=minibatch batch_size=1 tau=0 epsilon=0 learning_rate=sklearn",
        "method=nystrom m=50 rank=5 reg_rank=auto sampling=rls rls_lambda=auto",
        "rank=none reg_rank=7 sampling=kmeanspp rls_lambda=1e-9",
        "solver=minibatch init=random n_init=1000 max_iter=1000000 tol=0",
        "seed=9007199254740991 threads=1024 max_memory_mb=1073741824",
        "nystrom_rcond=0 tol=0.9999 bandwidth_scale=1e300",
        "n_clusters=4 centers=5 n_components=9 landmarks=3 s=2 l=4 b=64 beta=0.3",
        "nstart=3 iter.max=50 random_state=42 num_threads=2 n_jobs=1",
        "gamma=+1.5e+02 coef0=-0 k=+7",
        "kernel=cosine",
        "kernel=precomputed method=exact",
        "k=0",
        "k=2147483648",
        "gamma=0",
        "gamma=inf",
        "tol=1",
        "m=auto rank=auto",
        "=5",
        "k=",
        "k==3",
        "unknown=1",
        "K=3",
        "k=3 k=4",
        "k=3,,,method=exact",
        "method=Exact",
        "degree=21",
        "seed=-1",
        "gamma=1e-400",
        "gamma=4.9e-324",
        "epsilon=0x10",
        "k=1e3",
        "k=3.0",
        "k= 3",
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; ++i) {
        write(dir + "/fuzz_params/seed-" + std::to_string(i), params[i], std::strlen(params[i]));
    }

    // ---------------------------------------------------------------- fuzz_load
    make_dir(dir + "/fuzz_load");
    int written = 0;
    for (size_t i = 0; i < seed_params().size(); ++i) {
        std::vector<unsigned char> bytes = seed_model(seed_params()[i]);
        if (bytes.empty()) continue;
        bytes.insert(bytes.begin(), 1);  // mode 1: resealed
        write(dir + "/fuzz_load/model-" + std::to_string(i), bytes.data(), bytes.size());
        if (i == 0) {
            bytes[0] = 0;  // mode 0: raw, the valid model as it is
            write(dir + "/fuzz_load/raw-0", bytes.data(), bytes.size());
        }
        ++written;
    }
    const unsigned char patched0[] = {2, 5, 0x40, 0x00, 3, 4, 0x90, 0x01, 0, 0x7f};
    const unsigned char patched1[] = {2, 0, 0x10, 0x00, 3, 200, 0x60, 0x02, 4, 1};
    write(dir + "/fuzz_load/patched-0", patched0, sizeof patched0);
    write(dir + "/fuzz_load/patched-1", patched1, sizeof patched1);

    // ---------------------------------------------------------------- fuzz_fit
    make_dir(dir + "/fuzz_fit");
    uint32_t s = 12345;
    for (int i = 0; i < 32; ++i) {
        const size_t size = 64u << (i % 5);  // 64 .. 1024 bytes
        std::vector<unsigned char> bytes(size);
        for (auto& b : bytes) {
            s = s * 1664525u + 1013904223u;
            b = static_cast<unsigned char>(s >> 24);
        }
        write(dir + "/fuzz_fit/random-" + std::to_string(i), bytes.data(), bytes.size());
    }
    // ---------------------------------------------------------------- fuzz_shapes
    make_dir(dir + "/fuzz_shapes");
    for (int i = 0; i < 32; ++i) {
        const size_t size = 8u << (i % 4);  // 8 .. 64 bytes
        std::vector<unsigned char> bytes(size);
        for (auto& b : bytes) {
            s = s * 1664525u + 1013904223u;
            b = static_cast<unsigned char>(s >> 24);
        }
        write(dir + "/fuzz_shapes/random-" + std::to_string(i), bytes.data(), bytes.size());
    }
    std::printf("wrote %zu parameter strings, %d models (+3 load inputs), 32 fit inputs, 32 shape inputs under %s\n",
                sizeof params / sizeof params[0], written, dir.c_str());
    return 0;
}
