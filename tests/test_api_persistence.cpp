// Model persistence through the public C API: kkm_save_buffer / kkm_load_buffer and
// kkm_save / kkm_load. A loaded model must assign exactly (bit for bit) as the saved one,
// for every method and model shape; every damaged buffer must be a FORMAT error, also one
// whose checksum is valid (a parameter block that contradicts the body, a negative cluster
// size), and a file that is not a model or is cut short (saying how many bytes are missing);
// a save that fails half-way leaves the file saved before.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.h"

using namespace kkm_test;

namespace {

struct Assigned {
    std::vector<int32_t> labels;
    std::vector<float> dist;
};

Assigned assign(const kkm_model* m, const Dataset& ds, bool distances) {
    Assigned a{std::vector<int32_t>(static_cast<size_t>(ds.n)), std::vector<float>(static_cast<size_t>(ds.n))};
    EXPECT_TRUE(Ok(kkm_assign(m, ds.X.data(), ds.n, ds.d, a.labels.data(), distances ? a.dist.data() : nullptr)));
    return a;
}

std::vector<int32_t> training_labels(const kkm_model* m) {
    int64_t n = 0;
    EXPECT_TRUE(Ok(kkm_get_n_train(m, &n)));
    std::vector<int32_t> labels(static_cast<size_t>(n));
    EXPECT_TRUE(Ok(kkm_get_labels(m, labels.data(), n)));
    return labels;
}

/// Offset of the first section with this tag (searching the raw bytes).
size_t find_tag(const std::vector<unsigned char>& bytes, const char* tag) {
    for (size_t i = 16; i + 4 <= bytes.size(); ++i) {
        if (std::memcmp(bytes.data() + i, tag, 4) == 0) return i;
    }
    ADD_FAILURE() << "tag " << tag << " not found";
    return 0;
}

// ------------------------------------------------------------------ every method round-trips

struct Case {
    const char* params;
    bool distances;  // kernel=precomputed cannot give distances for exact/nystrom
    bool precomputed;
};

class RoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(RoundTrip, LoadedModelAssignsBitForBitAndKeepsTheFit) {
    const Case c = GetParam();
    Dataset train = rings(60, 11, 0.1), test = rings(40, 12, 0.1);
    if (c.precomputed) {  // kernel rows: rbf against the training points
        auto gram = [&](const Dataset& a) {
            Dataset g;
            g.n = a.n;
            g.d = train.n;
            for (int64_t i = 0; i < a.n; ++i) {
                for (int64_t j = 0; j < train.n; ++j) {
                    double s = 0;
                    for (int64_t t = 0; t < a.d; ++t) {
                        const double diff = a.X[size_t(i * a.d + t)] - train.X[size_t(j * train.d + t)];
                        s += diff * diff;
                    }
                    g.X.push_back(static_cast<float>(std::exp(-0.5 * s)));
                }
            }
            finish(g);
            return g;
        };
        const Dataset gtest = gram(test);
        train = gram(train);
        test = gtest;
    }
    Model a = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_fit(a.get(), train.X.data(), train.n, train.d, nullptr)));
    const std::vector<unsigned char> bytes = save(a.get());

    Model b = make_model("k=5 method=exact");  // different parameters: load replaces them
    ASSERT_TRUE(Ok(kkm_load_buffer(b.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));

    const Assigned before = assign(a.get(), test, c.distances), after = assign(b.get(), test, c.distances);
    EXPECT_EQ(before.labels, after.labels);
    EXPECT_EQ(0, std::memcmp(before.dist.data(), after.dist.data(), before.dist.size() * sizeof(float)));
    EXPECT_EQ(training_labels(a.get()), training_labels(b.get()));

    double oa = 0, ob = 0;
    int32_t ia = 0, ib = 0, ka = 0, kb = 0;
    ASSERT_TRUE(Ok(kkm_get_objective(a.get(), &oa)) && Ok(kkm_get_objective(b.get(), &ob)));
    ASSERT_TRUE(Ok(kkm_get_iterations(a.get(), &ia)) && Ok(kkm_get_iterations(b.get(), &ib)));
    ASSERT_TRUE(Ok(kkm_get_k(a.get(), &ka)) && Ok(kkm_get_k(b.get(), &kb)));
    EXPECT_EQ(oa, ob);
    EXPECT_EQ(ia, ib);
    EXPECT_EQ(ka, kb);
    for (const char* key : {"method", "kernel", "gamma", "m", "sketch", "seed", "k"}) {
        EXPECT_EQ(get_param(a.get(), key), get_param(b.get(), key)) << key;
    }
    char ta[512], tb[512];
    ASSERT_TRUE(Ok(kkm_get_timings(a.get(), ta, sizeof ta, nullptr)) &&
                Ok(kkm_get_timings(b.get(), tb, sizeof tb, nullptr)));
    EXPECT_STREQ(ta, tb);
    // The loaded model saves to the same bytes.
    EXPECT_EQ(bytes, save(b.get()));
}

INSTANTIATE_TEST_SUITE_P(
    EveryMethod, RoundTrip,
    ::testing::Values(Case{"k=2 method=exact kernel=rbf gamma=0.5", true, false},
                      Case{"k=2 method=exact kernel=laplacian gamma=0.5", true, false},
                      Case{"k=2 method=exact kernel=polynomial degree=2 gamma=auto", true, false},
                      Case{"k=2 method=nystrom kernel=rbf gamma=0.5 m=40", true, false},
                      Case{"k=2 method=nystrom kernel=rbf gamma=auto m=40 rank=2 sampling=rls", true, false},
                      Case{"k=2 method=nystrom kernel=rbf gamma=0.5 m=40 solver=minibatch batch_size=32", true, false},
                      Case{"k=2 method=nystrom kernel=linear m=30 sampling=kmeanspp", true, false},
                      Case{"k=2 method=sketch sketch=subgaussian gamma=0.5 m=40", true, false},
                      Case{"k=2 method=sketch sketch=ros gamma=0.5 m=40", true, false},
                      Case{"k=2 method=sketch sketch=gaussian gamma=0.5 m=40", true, false},
                      Case{"k=2 method=sketch sketch=identity gamma=0.5 m=40", true, false},
                      Case{"k=2 method=rff kernel=rbf gamma=0.5 m=200", true, false},
                      Case{"k=2 method=rff kernel=laplacian gamma=0.5 m=200", true, false},
                      Case{"k=2 method=minibatch gamma=0.5 batch_size=32 tau=20", true, false},
                      Case{"k=2 method=minibatch gamma=0.5 batch_size=32 tau=0", true, false},
                      Case{"k=2 method=exact kernel=precomputed", false, true},
                      Case{"k=2 method=nystrom kernel=precomputed m=30", false, true},
                      Case{"k=2 method=sketch kernel=precomputed m=30 sketch=ros", true, true}));

// ------------------------------------------------------------------ files

TEST(Persistence, FileRoundTripAndIoErrors) {
    const Dataset ds = blobs(30, 3, 3, 5);
    Model a = make_model("k=3 method=nystrom m=20 gamma=auto");
    ASSERT_TRUE(Ok(kkm_fit(a.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::string path = ::testing::TempDir() + "kkm_persistence_test.kkm";
    ASSERT_TRUE(Ok(kkm_save(a.get(), path.c_str())));
    Model b = make_model();
    ASSERT_TRUE(Ok(kkm_load(b.get(), path.c_str())));
    EXPECT_EQ(assign(a.get(), ds, true).labels, assign(b.get(), ds, true).labels);
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(file, save(a.get()));
    std::remove(path.c_str());

    EXPECT_TRUE(Fails(kkm_load(b.get(), path.c_str()), KKM_ERR_IO, {"kkm_persistence_test.kkm"}));
    EXPECT_TRUE(Fails(kkm_save(a.get(), "/nonexistent-dir/x.kkm"), KKM_ERR_IO, {"/nonexistent-dir/x.kkm"}));
    EXPECT_TRUE(Fails(kkm_load(b.get(), "/"), KKM_ERR_IO, {}));  // a directory
    EXPECT_TRUE(Fails(kkm_save(a.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("path")}));
    EXPECT_TRUE(Fails(kkm_load(b.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("path")}));
    EXPECT_TRUE(Fails(kkm_load(nullptr, "x"), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
}

// Special files (issue 26): kkm_save wrote a temporary file and renamed it over whatever the
// path named, so a device node, a FIFO or a link to /proc/self/fd/N became a regular file.
// Now they are written through and stay what they were. Private nodes only, never /dev.
class SpecialFiles : public kkm_test::FileDir {
protected:
    SpecialFiles() : FileDir("kkm_special_") {}
    void SetUp() override {
        FileDir::SetUp();
        const Dataset ds = blobs(30, 3, 3, 5);
        model_ = make_model("k=3 method=nystrom m=20");
        ASSERT_TRUE(Ok(kkm_fit(model_.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    }
    Model model_;
};

TEST_F(SpecialFiles, CharacterDeviceIsWrittenThroughNotReplaced) {
    const std::string node = dir_ + "/null";
    if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
    ASSERT_TRUE(Ok(kkm_save(model_.get(), node.c_str())));
    struct stat st {};
    ASSERT_EQ(::stat(node.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);  // no temporary left
}

TEST_F(SpecialFiles, FifoWithAReaderGetsTheModelAndStaysAFifo) {
    const std::string fifo = dir_ + "/fifo";
    const std::string link = dir_ + "/link";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(::symlink("fifo", link.c_str()), 0);
    std::vector<unsigned char> got;
    std::thread reader([&] {
        std::ifstream in(fifo, std::ios::binary);
        got.assign(std::istreambuf_iterator<char>(in), {});
    });
    // The reader may not have opened yet: retry while the FIFO has none.
    kkm_status status = KKM_ERR_IO;
    for (int i = 0; i < 500 && status != KKM_OK; ++i) {
        status = kkm_save(model_.get(), link.c_str());
        if (status != KKM_OK) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    reader.join();
    ASSERT_EQ(status, KKM_OK) << kkm_last_error();
    EXPECT_EQ(got, save(model_.get()));
    struct stat st {};
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(SpecialFiles, FifoWithoutAReaderIsAnErrorNotAHang) {
    const std::string fifo = dir_ + "/fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(Fails(kkm_save(model_.get(), fifo.c_str()), KKM_ERR_IO, {"fifo", "no reader"}));
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(SpecialFiles, LinkToProcSelfFdStaysALink) {
    // A link to this process's descriptor of a regular file (as /dev/stdout is to fd 1): the
    // model is appended through the descriptor's file; the link is not replaced.
    const std::string file = dir_ + "/target";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    const std::string link = dir_ + "/fd_link";
    ASSERT_EQ(::symlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link.c_str()), 0);
    ASSERT_TRUE(Ok(kkm_save(model_.get(), link.c_str())));
    ::close(fd);
    struct stat st {};
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    std::ifstream in(file, std::ios::binary);
    EXPECT_EQ(std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {}), save(model_.get()));
}

TEST_F(SpecialFiles, DirectoryAndSocketAreRefusedByName) {
    EXPECT_TRUE(Fails(kkm_save(model_.get(), dir_.c_str()), KKM_ERR_IO, {"directory"}));
    const std::string sock = dir_ + "/sock";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
    if (sock.size() < sizeof addr.sun_path && ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
        EXPECT_TRUE(Fails(kkm_save(model_.get(), sock.c_str()), KKM_ERR_IO, {"socket"}));
    }
    ::close(fd);
}

TEST_F(SpecialFiles, EndlessStreamStopsAtMaxMemory) {
    // kkm_load of /dev/zero or a pipe read until memory ran out; now it stops at max_memory_mb.
    std::signal(SIGPIPE, SIG_IGN);  // the writer sees EPIPE once the reader gives up
    const std::string fifo = dir_ + "/endless";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        std::vector<char> zeros(1 << 16, 0);
        while (fd >= 0 && !stop && ::write(fd, zeros.data(), zeros.size()) > 0) {
        }
        if (fd >= 0) ::close(fd);
    });
    Model m = make_model("max_memory_mb=2");
    EXPECT_TRUE(Fails(kkm_load(m.get(), fifo.c_str()), KKM_ERR_IO, {"endless", "max_memory_mb"}));
    stop = true;
    writer.join();
}

// ------------------------------------------------------------------ argument errors

TEST(Persistence, BufferArguments) {
    const Dataset ds = blobs(20, 2, 2, 3);
    Model unfitted = make_model("k=2");
    int64_t size = 0;
    EXPECT_TRUE(Fails(kkm_save_buffer(unfitted.get(), nullptr, 0, &size), KKM_ERR_NOT_FITTED, {"fit"}));
    EXPECT_TRUE(Fails(kkm_save(unfitted.get(), "x.kkm"), KKM_ERR_NOT_FITTED, {"fit"}));
    EXPECT_TRUE(Fails(kkm_save_buffer(nullptr, nullptr, 0, &size), KKM_ERR_INVALID_ARGUMENT, {W("model")}));

    Model m = make_model("k=2 method=exact gamma=0.5");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    EXPECT_TRUE(Fails(kkm_save_buffer(m.get(), nullptr, 0, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("size")}));
    ASSERT_TRUE(Ok(kkm_save_buffer(m.get(), nullptr, 0, &size)));
    std::vector<unsigned char> small(static_cast<size_t>(size - 1), 0xAB);
    int64_t need = 0;
    EXPECT_TRUE(Fails(kkm_save_buffer(m.get(), small.data(), size - 1, &need), KKM_ERR_INVALID_ARGUMENT,
                      {W("capacity"), W(std::to_string(size))}));
    EXPECT_EQ(need, size);
    EXPECT_TRUE(std::all_of(small.begin(), small.end(), [](unsigned char c) { return c == 0xAB; }))
        << "nothing may be written into a buffer that is too small";
    EXPECT_TRUE(Fails(kkm_save_buffer(m.get(), nullptr, size, &need), KKM_ERR_INVALID_ARGUMENT, {W("buffer")}));

    const std::vector<unsigned char> bytes = save(m.get());
    EXPECT_TRUE(Fails(kkm_load_buffer(m.get(), nullptr, 10), KKM_ERR_INVALID_ARGUMENT, {W("buffer")}));
    EXPECT_TRUE(Fails(kkm_load_buffer(m.get(), bytes.data(), -1), KKM_ERR_INVALID_ARGUMENT, {W("size")}));
    EXPECT_TRUE(Fails(kkm_load_buffer(nullptr, bytes.data(), 10), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
}

// ------------------------------------------------------------------ damaged buffers

class Damaged : public ::testing::Test {
protected:
    void SetUp() override {
        const Dataset ds = blobs(15, 2, 2, 9);
        Model m = make_model("k=2 method=nystrom m=10 gamma=0.5");
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        bytes = save(m.get());
        probe = ds;
        target = make_model("k=3 method=exact gamma=0.25");
        ASSERT_TRUE(Ok(kkm_fit(target.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        reference = assign(target.get(), probe, true).labels;
    }
    kkm_status load(const std::vector<unsigned char>& b) {
        return kkm_load_buffer(target.get(), b.data(), static_cast<int64_t>(b.size()));
    }
    /// A failed load leaves the target model as it was.
    void expect_unchanged() {
        EXPECT_EQ(get_param(target.get(), "k"), "3");
        EXPECT_EQ(assign(target.get(), probe, true).labels, reference);
    }
    std::vector<unsigned char> bytes;
    Dataset probe;
    Model target;
    std::vector<int32_t> reference;
};

TEST_F(Damaged, EveryTruncationIsAFormatError) {
    for (size_t len = 0; len < bytes.size(); ++len) {
        const std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + static_cast<long>(len));
        ASSERT_TRUE(Fails(load(cut), KKM_ERR_FORMAT)) << "length " << len;
    }
    expect_unchanged();
}

TEST_F(Damaged, EverySingleBitFlipIsAFormatError) {
    for (size_t i = 0; i < bytes.size(); ++i) {
        std::vector<unsigned char> bad = bytes;
        bad[i] ^= static_cast<unsigned char>(1u << (i % 8));
        ASSERT_TRUE(Fails(load(bad), KKM_ERR_FORMAT)) << "byte " << i;
    }
    expect_unchanged();
}

TEST_F(Damaged, MagicVersionAndByteOrder) {
    std::vector<unsigned char> b = bytes;
    b[0] = 'X';
    EXPECT_TRUE(Fails(load(b), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    b = bytes;
    const uint32_t newer = 99;
    std::memcpy(b.data() + 8, &newer, 4);
    reseal(b);
    EXPECT_TRUE(Fails(load(b), KKM_ERR_FORMAT, {"99", "newer", "upgrade"}));
    b = bytes;
    const uint32_t swapped = 0x04030201u;
    std::memcpy(b.data() + 12, &swapped, 4);
    reseal(b);
    EXPECT_TRUE(Fails(load(b), KKM_ERR_FORMAT, {"byte order"}));
    EXPECT_TRUE(Fails(load({}), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    expect_unchanged();
}

// Crafted buffers with a valid checksum: sizes that would overflow or allocate without
// bound, indices out of range, inconsistent shapes. None may crash or allocate much.
TEST_F(Damaged, CraftedSizesWithValidChecksum) {
    auto with = [&](const char* tag, size_t skip, uint64_t value, size_t width) {
        std::vector<unsigned char> b = bytes;
        const size_t at = find_tag(b, tag) + 4 + 8 + skip;  // tag, section size, then payload
        std::memcpy(b.data() + at, &value, width);
        reseal(b);
        return b;
    };
    // Element counts and matrix shapes far beyond the buffer.
    EXPECT_TRUE(Fails(load(with("LABL", 0, uint64_t{1} << 62, 8)), KKM_ERR_FORMAT, {"LABL"}));
    EXPECT_TRUE(Fails(load(with("LABL", 0, ~uint64_t{0}, 8)), KKM_ERR_FORMAT, {"LABL"}));
    EXPECT_TRUE(Fails(load(with("BPTS", 0, uint64_t{1} << 40, 8)), KKM_ERR_FORMAT, {"BPTS"}));
    EXPECT_TRUE(Fails(load(with("BPTS", 8, uint64_t{1} << 61, 8)), KKM_ERR_FORMAT, {"BPTS"}));
    EXPECT_TRUE(Fails(load(with("BPTS", 0, 0, 8)), KKM_ERR_FORMAT, {"BPTS"}));
    // A section size beyond the end.
    {
        std::vector<unsigned char> b = bytes;
        const uint64_t huge = uint64_t{1} << 63;
        std::memcpy(b.data() + find_tag(b, "BODY") + 4, &huge, 8);
        reseal(b);
        EXPECT_TRUE(Fails(load(b), KKM_ERR_FORMAT, {"BODY"}));
    }
    // A label outside [0, k), a non-finite centre, an unknown parameter value.
    EXPECT_TRUE(Fails(load(with("LABL", 8, 7, 4)), KKM_ERR_FORMAT, {"label", "7"}));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    uint32_t nan_bits;
    std::memcpy(&nan_bits, &nan, 4);
    EXPECT_TRUE(Fails(load(with("NYSH", 16, nan_bits, 4)), KKM_ERR_FORMAT, {"NYSH", "non-finite"}));
    {
        std::vector<unsigned char> b = bytes;
        const size_t at = find_tag(b, "PARM") + 4 + 8 + 8;  // the text starts with "k="
        ASSERT_EQ(b[at], 'k');
        b[at] = 'q';
        reseal(b);
        EXPECT_TRUE(Fails(load(b), KKM_ERR_FORMAT, {"parameter block", "unknown parameter 'q'"}));
    }
    expect_unchanged();
}

}  // namespace

// ------------------------------------------------------------------ crafted values (issue 26)

namespace {

/// bytes with `value` written at `offset` into the payload of the first section `tag`
/// (after its tag and byte size), the checksum resealed: what a red team's mutation does.
template <typename T>
std::vector<unsigned char> patched(std::vector<unsigned char> b, const char* tag, size_t offset, T value) {
    std::memcpy(b.data() + find_tag(b, tag) + 12 + offset, &value, sizeof value);
    reseal(b);
    return b;
}

struct Fitted {
    Model model;
    std::vector<unsigned char> bytes;
    std::vector<int32_t> labels;
};

Fitted fitted(const char* params, const Dataset& ds) {
    Fitted f{make_model(params), {}, std::vector<int32_t>(static_cast<size_t>(ds.n))};
    EXPECT_TRUE(Ok(kkm_fit(f.model.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    f.bytes = save(f.model.get());
    EXPECT_TRUE(Ok(kkm_assign(f.model.get(), ds.X.data(), ds.n, ds.d, f.labels.data(), nullptr)));
    return f;
}

kkm_status load_into(kkm_model* m, const std::vector<unsigned char>& b) {
    return kkm_load_buffer(m, b.data(), static_cast<int64_t>(b.size()));
}

}  // namespace

// Checksum-valid models whose values feed distances: each was accepted and gave silent wrong
// answers (a coefficient of 3e38 or a negative centre norm gave distances of 0; an alive flag
// of 7 was taken as alive; a ROS sign of 3e38 gave +inf from kkm_assign and 0 from
// kkm_distances; rff ignored a gamma of -1). Now each is a FORMAT error naming the value.
TEST(CraftedModel, ValuesThatFeedDistancesAreValidated) {
    const Dataset ds = blobs(30, 3, 3, 5);
    Model target = make_model();
    const Fitted exact = fitted("k=3 method=exact gamma=0.5", ds);
    // DUAZ: rows, cols, then the n x k coefficients (row-major).
    EXPECT_TRUE(Fails(load_into(target.get(), patched(exact.bytes, "DUAZ", 16, 3e38f)), KKM_ERR_FORMAT,
                      {"dual centre 0", "sum"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(exact.bytes, "DUAZ", 16, -0.5f)), KKM_ERR_FORMAT,
                      {"dual centre 0", "coefficient", "< 0"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(exact.bytes, "DUAC", 8, -2.0)), KKM_ERR_FORMAT,
                      {"dual centre 0", "squared norm", "-2"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(exact.bytes, "DUAC", 8, 5.0)), KKM_ERR_FORMAT,
                      {"dual centre 0", "squared norm", "5"}));  // rbf: at most k(x, x) = 1

    const Fitted nystrom = fitted("k=3 method=nystrom m=20 gamma=0.5", ds);
    EXPECT_TRUE(Fails(load_into(target.get(), patched(nystrom.bytes, "NYSA", 8, char{7})), KKM_ERR_FORMAT,
                      {"live clusters", "7", "not 0 or 1"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(nystrom.bytes, "NYSC", 8, -1.0f)), KKM_ERR_FORMAT,
                      {"Nystrom centre 0", "squared norm", "negative"}));
    const std::vector<char> none(3, 0);
    std::vector<unsigned char> dead = nystrom.bytes;
    std::memcpy(dead.data() + find_tag(dead, "NYSA") + 20, none.data(), 3);
    reseal(dead);
    EXPECT_TRUE(Fails(load_into(target.get(), dead), KKM_ERR_FORMAT, {"no cluster is alive"}));

    const Fitted ros = fitted("k=3 method=sketch sketch=ros m=20 gamma=0.5", ds);
    EXPECT_TRUE(Fails(load_into(target.get(), patched(ros.bytes, "PSGN", 8, 3e38f)), KKM_ERR_FORMAT,
                      {"(ros) sign 0", "not +-1/sqrt"}));

    const Fitted rff = fitted("k=3 method=rff m=50 gamma=0.5", ds);
    // REPT: objective, iterations, then gamma (8 bytes each).
    EXPECT_TRUE(Fails(load_into(target.get(), patched(rff.bytes, "REPT", 16, -1.0)), KKM_ERR_FORMAT,
                      {"gamma=-1", "not positive", "kernel=rbf"}));
    const Fitted sketch = fitted("k=3 method=sketch m=20 gamma=0.5", ds);
    EXPECT_TRUE(Fails(load_into(target.get(), patched(sketch.bytes, "FEAA", 8, char{2})), KKM_ERR_FORMAT,
                      {"live centroids", "2", "not 0 or 1"}));
    int32_t k = 0;
    EXPECT_TRUE(Fails(kkm_get_k(target.get(), &k), KKM_ERR_NOT_FITTED));  // every load failed: unchanged
}

// Checksum-valid graph and rff models whose values a fit cannot produce (issue 60): knn's
// coefficients negative or 1e300 and norms beyond them, heat's eigenvalues 0 or -1 and degrees
// of 1e-300 were accepted (the header promises FORMAT for the coefficients and norms) and the
// model labelled rows differently; rff ignored a tampered gamma. Each is FORMAT now, naming
// the value (a centring shift of 3e38 is a mean a fit can give: rows far from it are refused
// when assigned); an affinity row the model can only give +inf for
// is refused by kkm_distances as by kkm_assign.
TEST(CraftedModel, GraphAndRffValuesAFitCannotGiveAreFormatErrors) {
    const Dataset ds = blobs(40, 2, 2, 3);
    Model target = make_model();
    const Fitted knn = fitted("k=2 kernel=knn", ds);
    ASSERT_TRUE(Ok(load_into(target.get(), knn.bytes)));  // untouched: loads, the same labels
    // ZCOE: the count, then one coefficient per training node; ZNRM: the count, the k norms.
    for (const double z : {-1.0, 1e300, 0.5}) {
        EXPECT_TRUE(
            Fails(load_into(target.get(), patched(knn.bytes, "ZCOE", 8, z)), KKM_ERR_FORMAT, {"node 0", "coefficient"}))
            << z;
    }
    EXPECT_TRUE(Fails(load_into(target.get(), patched(knn.bytes, "ZNRM", 8, 1e300)), KKM_ERR_FORMAT,
                      {"centre 0", "squared norm"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(knn.bytes, "ZNRM", 8, 0.0)), KKM_ERR_FORMAT,
                      {"centre 0", "squared norm"}));

    const Fitted heat = fitted("k=2 kernel=heat", ds);
    ASSERT_TRUE(Ok(load_into(target.get(), heat.bytes)));
    // HVAL: the count, then the eigenvalues (descending, the first 1); GDEG: the count, degrees.
    EXPECT_TRUE(Fails(load_into(target.get(), patched(heat.bytes, "HVAL", 8, 0.0)), KKM_ERR_FORMAT, {"eigenvalue"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(heat.bytes, "HVAL", 8, -1.0)), KKM_ERR_FORMAT, {"eigenvalue"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(heat.bytes, "HVAL", 16, 1.0 + 1e-7)), KKM_ERR_FORMAT,
                      {"eigenvalue 1", "exceeds"}));
    EXPECT_TRUE(
        Fails(load_into(target.get(), patched(heat.bytes, "GDEG", 8, 1e-300)), KKM_ERR_FORMAT, {"node 0", "degree"}));
    // An affinity row of one denormal weight against a graph model: every distance is +inf.
    std::vector<int64_t> indptr{0, 2, 4, 6, 8};
    std::vector<int64_t> indices{1, 2, 0, 2, 0, 1, 3, 3};
    Model graph = make_model("k=2 kernel=knn");
    // Nodes 0-2 a triangle, node 3 a self-loop: two components.
    ASSERT_TRUE(Ok(kkm_fit_graph(graph.get(), 4, indptr.data(), indices.data(), nullptr)));
    const std::vector<float> tiny{1e-45f, 0.0f, 0.0f, 0.0f};
    int32_t label = -1;
    std::vector<float> dist(2);
    EXPECT_TRUE(Fails(kkm_assign(graph.get(), tiny.data(), 1, 4, &label, nullptr), KKM_ERR_INVALID_DATA, {"row 0"}));
    EXPECT_TRUE(Fails(kkm_distances(graph.get(), tiny.data(), 1, 4, dist.data(), 2), KKM_ERR_INVALID_DATA,
                      {"row 0", "nearest centre"}))
        << "distances gave " << dist[0] << ", " << dist[1];

    Dataset far = ds;
    for (float& v : far.X) v += 1000.0f;  // a centring shift
    const Fitted rff = fitted("k=2 method=rff m=64 gamma=0.5", far);
    ASSERT_TRUE(Ok(load_into(target.get(), rff.bytes)));
    // REPT: objective, iterations, then gamma; PARM's text holds gamma=0.5 too.
    EXPECT_TRUE(Fails(load_into(target.get(), patched(rff.bytes, "REPT", 16, 50.0)), KKM_ERR_FORMAT,
                      {"gamma=50", "frequencies"}));
    EXPECT_TRUE(Fails(load_into(target.get(), patched(rff.bytes, "REPT", 16, 0.005)), KKM_ERR_FORMAT,
                      {"gamma=0.005", "frequencies"}));
    // A shift of 3e38 is a mean data at that scale give: it loads, and the rows it was not
    // fitted on are refused when assigned (their projections overflow: never a silent label).
    ASSERT_TRUE(Ok(load_into(target.get(), patched(rff.bytes, "SHFT", 8, 3e38f))));
    std::vector<int32_t> got(static_cast<size_t>(far.n));
    EXPECT_TRUE(Fails(kkm_assign(target.get(), far.X.data(), far.n, far.d, got.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"W x", "overflows float32"}));
}

// The report's cluster sizes are informational: a feature model once took them as its live
// centroids, so a file with one size set to 0 assigned no row to that cluster.
TEST(CraftedModel, InformationalClusterSizesDoNotChangeAssignments) {
    const Dataset ds = blobs(30, 3, 3, 5);
    for (const char* params : {"k=3 method=sketch m=20 gamma=0.5", "k=3 method=rff m=50 gamma=0.5",
                               "k=3 method=nystrom m=20 solver=minibatch gamma=0.5"}) {
        SCOPED_TRACE(params);
        const Fitted f = fitted(params, ds);
        Model loaded = make_model();
        ASSERT_TRUE(Ok(load_into(loaded.get(), patched(f.bytes, "MASS", 8, 0.0))));
        std::vector<int32_t> labels(static_cast<size_t>(ds.n));
        ASSERT_TRUE(Ok(kkm_assign(loaded.get(), ds.X.data(), ds.n, ds.d, labels.data(), nullptr)));
        EXPECT_EQ(labels, f.labels);
    }
}

// A model whose values pass the loader's checks yet overflow float32 against a row (a
// centroid coordinate of 3e38): the distances were NaN, clamped to 0 (a perfect match), or a
// centre was skipped. Now assign (with or without distances), distances and transform are
// errors naming the row. A Nystrom centre whose coefficients disagree with its norm (which gave
// distances far below 0, clamped to 0) is refused when loaded.
TEST(CraftedModel, NonFiniteDistancesAreErrorsNeverZero) {
    const Dataset ds = blobs(30, 3, 3, 5);
    const Fitted f = fitted("k=3 method=sketch m=20 gamma=0.5", ds);
    Model loaded = make_model();
    // FEAC: rows, cols, then the k x r centroids.
    ASSERT_TRUE(Ok(load_into(loaded.get(), patched(f.bytes, "FEAC", 16, 3e38f))));
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    std::vector<float> dist(static_cast<size_t>(ds.n)), all(static_cast<size_t>(ds.n * 3));
    EXPECT_TRUE(Fails(kkm_assign(loaded.get(), ds.X.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 0", "non-finite distance"}));
    EXPECT_TRUE(Fails(kkm_assign(loaded.get(), ds.X.data(), ds.n, ds.d, labels.data(), dist.data()),
                      KKM_ERR_INVALID_DATA, {"row 0", "non-finite distance"}));
    EXPECT_TRUE(Fails(kkm_distances(loaded.get(), ds.X.data(), ds.n, ds.d, all.data(), ds.n * 3), KKM_ERR_INVALID_DATA,
                      {"row 0", "non-finite distance"}));

    const Fitted nystrom = fitted("k=3 method=nystrom m=20 gamma=0.5", ds);
    // NYSH: rows, cols, then the k x m centre coefficients.
    EXPECT_TRUE(Fails(load_into(loaded.get(), patched(nystrom.bytes, "NYSH", 16, 3e38f)), KKM_ERR_FORMAT,
                      {"Nystrom centre 0", "inconsistent"}));
    EXPECT_TRUE(Fails(load_into(loaded.get(), patched(nystrom.bytes, "NYSH", 16, 2.0f)), KKM_ERR_FORMAT,
                      {"Nystrom centre 0", "inconsistent"}));
}

// ------------------------------------------------------------------ format version 1

namespace {

/// Removes the empty array section `tag` (its tag, byte size, element count).
void drop_empty_array(std::vector<unsigned char>& b, const char* tag) {
    const size_t at = find_tag(b, tag);
    uint64_t size = 0, count = 0;
    std::memcpy(&size, b.data() + at + 4, 8);
    std::memcpy(&count, b.data() + at + 12, 8);
    EXPECT_EQ(count, 0u) << tag << " is not empty: the model has no older equivalent";
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
}

std::vector<unsigned char> with_version(std::vector<unsigned char> b, uint32_t version) {
    std::memcpy(b.data() + 8, &version, 4);
    reseal(b);
    return b;
}

/// Removes the section `tag`, the last of BODY, when the buffer holds one (BODY's size adjusted).
void drop_last_body_section(std::vector<unsigned char>& b, const char* tag) {
    const size_t body = find_tag(b, "BODY");
    if (std::string(reinterpret_cast<const char*>(b.data()), b.size()).find(tag) == std::string::npos) return;
    const size_t at = find_tag(b, tag);
    uint64_t size = 0, body_size = 0;
    std::memcpy(&size, b.data() + at + 4, 8);
    std::memcpy(&body_size, b.data() + body + 4, 8);
    EXPECT_EQ(at + 12 + size, body + 12 + body_size) << tag << " is not the last section of BODY";
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
    body_size -= 12 + size;
    std::memcpy(b.data() + body + 4, &body_size, 8);
}

/// A version-6 buffer turned into the version-5 file it stands for: a truncated minibatch
/// body without its centres' batch histories (MBST, the last section of BODY).
std::vector<unsigned char> as_version_five(std::vector<unsigned char> b) {
    drop_last_body_section(b, "MBST");
    return with_version(std::move(b), 5);
}

/// ... into the version-4 file: a feature body (sketch, rff, nystrom solver=minibatch) without
/// its live-centroid flags (FEAA, the last section of BODY), which version 4 derived from the
/// report's cluster sizes.
std::vector<unsigned char> as_version_four(std::vector<unsigned char> b) {
    b = as_version_five(std::move(b));
    drop_last_body_section(b, "FEAA");
    return with_version(std::move(b), 4);
}

/// ... into the version-3 file of a fit without a graph kernel: the report (REPT) without its
/// last three scalars (neighbors, heat_rank and the graph search, all 0).
std::vector<unsigned char> as_version_three(std::vector<unsigned char> b) {
    b = as_version_four(std::move(b));
    const size_t at = find_tag(b, "REPT");
    uint64_t size = 0;
    std::memcpy(&size, b.data() + at + 4, 8);
    const size_t end = at + 12 + size;
    int64_t tail[3] = {};
    std::memcpy(tail, b.data() + end - 24, 24);
    EXPECT_EQ(tail[0], 0);
    EXPECT_EQ(tail[1], 0);
    EXPECT_EQ(tail[2], 0);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(end - 24), b.begin() + static_cast<std::ptrdiff_t>(end));
    size -= 24;
    std::memcpy(b.data() + at + 4, &size, 8);
    return with_version(std::move(b), 3);
}

/// ... into the version-2 file: also without the search scan (SRCG, SRCK, SRCS, SRCC, empty),
/// version field 2, resealed.
std::vector<unsigned char> as_version_two(std::vector<unsigned char> b) {
    b = as_version_three(std::move(b));
    for (const char* tag : {"SRCG", "SRCK", "SRCS", "SRCC"}) drop_empty_array(b, tag);
    return with_version(std::move(b), 2);
}

/// ... and into the version-1 file: also without the report's centring shift (SHFT, empty).
std::vector<unsigned char> as_version_one(std::vector<unsigned char> b) {
    b = as_version_two(std::move(b));
    drop_empty_array(b, "SHFT");
    return with_version(std::move(b), 1);
}

/// Loads `old` (an older file of `fitted`) and checks that it labels ds as `fitted` does.
Model loaded_assigns_alike(const kkm_model* fitted, const std::vector<unsigned char>& old, const Dataset& ds) {
    Model loaded = make_model("");
    EXPECT_TRUE(Ok(kkm_load_buffer(loaded.get(), old.data(), static_cast<int64_t>(old.size()))));
    std::vector<int32_t> want(static_cast<size_t>(ds.n)), got(want.size());
    EXPECT_TRUE(Ok(kkm_assign(fitted, ds.X.data(), ds.n, ds.d, want.data(), nullptr)));
    EXPECT_TRUE(Ok(kkm_assign(loaded.get(), ds.X.data(), ds.n, ds.d, got.data(), nullptr)));
    EXPECT_EQ(got, want);
    return loaded;
}

}  // namespace

TEST(FormatVersion, VersionOneToFourFilesStillLoad) {
    // Kernels that are not shift-invariant are never centred: their version-2 files differ
    // from version 1 only by the empty shift and the version, so a version-1 file is at hand.
    const Dataset ds = blobs(40, 3, 3, 5);
    for (const char* params : {"k=3 method=exact kernel=polynomial gamma=0.1", "k=3 method=nystrom m=30 kernel=cosine",
                               "k=3 method=sketch m=30 kernel=polynomial gamma=0.1"}) {
        SCOPED_TRACE(params);
        Model fitted = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(fitted.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        for (int version : {1, 2, 3, 4}) {
            const std::vector<unsigned char> now = save(fitted.get());
            const std::vector<unsigned char> old = version == 1   ? as_version_one(now)
                                                   : version == 2 ? as_version_two(now)
                                                   : version == 3 ? as_version_three(now)
                                                                  : as_version_four(now);
            loaded_assigns_alike(fitted.get(), old, ds);
        }
    }
}

TEST(FormatVersion, AVersionFiveMinibatchFileAssignsButDoesNotStream) {
    // Format 6 added the centres' batch histories that kkm_partial_fit goes on from: a
    // version-5 minibatch file assigns as before, and a stream cannot go on from it.
    const Dataset ds = blobs(40, 3, 3, 5);
    Model fitted = make_model("k=3 method=minibatch batch_size=32 tau=16");
    ASSERT_TRUE(Ok(kkm_fit(fitted.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::vector<unsigned char> now = save(fitted.get()), old = as_version_five(now);
    ASSERT_LT(old.size(), now.size());
    const Model loaded = loaded_assigns_alike(fitted.get(), old, ds);
    EXPECT_TRUE(Fails(kkm_partial_fit(loaded.get(), ds.X.data(), 20, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"format 6", "histories"}));
    EXPECT_TRUE(Ok(kkm_partial_fit(fitted.get(), ds.X.data(), 20, ds.d, nullptr)));
}

TEST(CraftedModel, MinibatchHistoriesAreValidated) {
    // The arrays of MBST: count (8 bytes), then the values.
    const Dataset ds = blobs(40, 3, 3, 5);
    const Fitted f = fitted("k=3 method=minibatch batch_size=32 tau=16", ds);
    Model m = make_model("");
    EXPECT_TRUE(
        Fails(load_into(m.get(), patched(f.bytes, "MBTA", 8, 2.0)), KKM_ERR_FORMAT, {"mini-batch history", "(0, 1]"}));
    EXPECT_TRUE(Fails(load_into(m.get(), patched(f.bytes, "MBTP", 8, int64_t{1} << 40)), KKM_ERR_FORMAT,
                      {"mini-batch history", "outside its basis"}));
    EXPECT_TRUE(Fails(load_into(m.get(), patched(f.bytes, "MBSN", 8, 0.5)), KKM_ERR_FORMAT,
                      {"mini-batch history", "count below 1"}));
    EXPECT_TRUE(Fails(load_into(m.get(), patched(f.bytes, "MBTS", 8, int64_t{0})), KKM_ERR_FORMAT,
                      {"mini-batch history", "counts"}));
    EXPECT_TRUE(Ok(load_into(m.get(), f.bytes)));
}

// ================================================================== damaged and unreadable model files

namespace {

/// Offset of the top-level section `tag` of a saved model (walking the sections from the
/// 16-byte header), or 0.
size_t top_section(const std::vector<unsigned char>& bytes, const char* tag) {
    for (size_t at = 16; at + 12 <= bytes.size();) {
        uint64_t size = 0;
        std::memcpy(&size, bytes.data() + at + 4, 8);
        if (std::memcmp(bytes.data() + at, tag, 4) == 0) return at;
        at += 12 + static_cast<size_t>(size);
    }
    ADD_FAILURE() << "no section " << tag;
    return 0;
}

/// The model with its parameter block (the first section, PARM) replaced by `text`, resealed.
std::vector<unsigned char> with_parameter_block(const std::vector<unsigned char>& bytes, const std::string& text) {
    const size_t at = top_section(bytes, "PARM");
    uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at + 4, 8);
    std::vector<unsigned char> out(bytes.begin(), bytes.begin() + static_cast<long>(at));
    auto put64 = [&out](uint64_t v) {
        const auto* p = reinterpret_cast<const unsigned char*>(&v);
        out.insert(out.end(), p, p + 8);
    };
    out.insert(out.end(), {'P', 'A', 'R', 'M'});
    put64(8 + text.size());
    put64(text.size());
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), bytes.begin() + static_cast<long>(at + 12 + size), bytes.end());
    reseal(out);
    return out;
}

/// The saved parameter text of a model.
std::string parameter_block(const std::vector<unsigned char>& bytes) {
    const size_t at = top_section(bytes, "PARM");
    uint64_t count = 0;
    std::memcpy(&count, bytes.data() + at + 12, 8);
    return std::string(reinterpret_cast<const char*>(bytes.data() + at + 20), static_cast<size_t>(count));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << text;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

}  // namespace

TEST(BadInputModel, ParameterBlockContradictsBody) {
    // A PARM block whose method is not the one the body was fitted with loaded and reported
    // parameters the model was not fitted with. Each pair: the fit, the method written over it.
    struct Swap {
        const char* fit;
        const char* method;
        const char* body;  // words of the message naming the body
    };
    const Swap swaps[] = {
        {"k=2 method=rff gamma=0.1 m=16 seed=1", "exact", "random Fourier features"},
        {"k=2 method=rff gamma=0.1 m=16 seed=1", "sketch", "random Fourier features"},
        {"k=2 method=exact gamma=0.1 seed=1", "rff", "dual"},
        {"k=2 method=exact gamma=0.1 seed=1", "nystrom", "dual"},
        {"k=2 method=nystrom gamma=0.1 m=8 seed=1", "minibatch", "Nystrom"},
        {"k=2 method=sketch gamma=0.1 m=8 seed=1", "nystrom", "sketched"},
        {"k=2 method=nystrom solver=minibatch gamma=0.1 m=8 seed=1", "sketch", "Nystrom features"},
    };
    for (const Swap& c : swaps) {
        SmallFit f(c.fit);
        const std::vector<unsigned char> bytes = save(f.m.get());
        const std::string text = parameter_block(bytes);
        const std::string method = get_param(f.m.get(), "method");
        const std::vector<unsigned char> bad =
            with_parameter_block(bytes, replaced(text, "method=" + method, std::string("method=") + c.method));
        Model target = make_model("k=3");
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT,
                          {"corrupted model", S(std::string("method=") + c.method), S(c.body), "inconsistent"}))
            << c.fit << " saved as method=" << c.method;
        expect_unfitted(target.get());
        EXPECT_EQ(get_param(target.get(), "k"), "3");
        // The untouched block (rebuilt the same way) still loads: the helper is not the cause.
        const std::vector<unsigned char> same = with_parameter_block(bytes, text);
        EXPECT_TRUE(Ok(kkm_load_buffer(target.get(), same.data(), static_cast<int64_t>(same.size())))) << c.fit;
    }
    // rff with a kernel that random features cannot represent.
    SmallFit f("k=2 method=rff gamma=0.1 m=16 seed=1");
    const std::vector<unsigned char> bytes = save(f.m.get());
    const std::vector<unsigned char> bad =
        with_parameter_block(bytes, replaced(parameter_block(bytes), "kernel=rbf", "kernel=linear"));
    Model target = make_model();
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT,
                      {"kernel=linear", "rbf or laplacian"}));
}

TEST(BadInputModel, NegativeClusterSize) {
    for (const char* params : {"k=2 method=nystrom gamma=0.1 m=8 seed=1", "k=2 method=exact gamma=0.1 seed=1"}) {
        SmallFit f(params);
        std::vector<unsigned char> bytes = save(f.m.get());
        const double negative = -3.5;
        std::memcpy(bytes.data() + top_section(bytes, "MASS") + 12 + 8 + 8, &negative, 8);  // cluster 1
        reseal(bytes);
        Model target = make_model("k=3");
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bytes.data(), static_cast<int64_t>(bytes.size())),
                          KKM_ERR_FORMAT, {"corrupted model", "cluster 1", "-3.5", "negative"}))
            << params;
        expect_unfitted(target.get());
    }
}

TEST(BadInputModel, TruncatedFileSaysHowManyBytesAreMissing) {
    // The last 16 bytes of a cut file are not the END. trailer: the loader said "expected
    // section END. but found B?6?" (whatever bytes were there). It must say the file is
    // truncated, and by how much.
    SmallFit f(kSmallNystrom);
    const std::vector<unsigned char> bytes = save(f.m.get());
    Model target = make_model("k=3");
    // Cuts in the trailer and in BODY, the last section (nearly all of a model): exact counts.
    for (const size_t cut : {size_t{1}, size_t{7}, size_t{16}, size_t{17}, size_t{100}}) {
        const std::vector<unsigned char> part(bytes.begin(), bytes.end() - static_cast<long>(cut));
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), part.data(), static_cast<int64_t>(part.size())), KKM_ERR_FORMAT,
                          {"truncated", S("has " + std::to_string(part.size()) + " bytes"),
                           S("expected " + std::to_string(cut) + " more bytes")}))
            << "cut " << cut;
    }
    // Cut inside an earlier section: at least the rest of that section is missing.
    const size_t labels = top_section(bytes, "LABL");
    const std::vector<unsigned char> part(bytes.begin(), bytes.begin() + static_cast<long>(labels + 20));
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), part.data(), static_cast<int64_t>(part.size())), KKM_ERR_FORMAT,
                      {"truncated", "LABL", "expected at least"}));
    // A damaged trailer in place is not a truncation.
    std::vector<unsigned char> damaged = bytes;
    damaged[damaged.size() - 16] = 'X';
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), damaged.data(), static_cast<int64_t>(damaged.size())),
                      KKM_ERR_FORMAT, {"END."}));
    expect_unfitted(target.get());
}

TEST(BadInputModel, FailedSaveLeavesTheOldFile) {
    // kkm_save opened the path with "wb" (truncating it) and then wrote: a write that failed
    // half-way (a full disk; here a file size limit) destroyed the model saved before.
    SmallFit f;
    char dir_template[] = "/tmp/kkm_bad_input_save_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_template), nullptr);
    const std::filesystem::path dir = dir_template;
    const std::string path = (dir / "model.kkm").string();
    const std::string old_bytes = "the model saved before (any bytes)";
    {
        std::ofstream out(path, std::ios::binary);
        out << old_bytes;
    }
    auto read_all = [](const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const std::vector<unsigned char> bytes = save(f.m.get());
    ASSERT_GT(bytes.size(), 512u);
    {
        // Writes past 512 bytes fail with EFBIG (SIGXFSZ ignored) until the limit is restored.
        rlimit saved{};
        ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
        void (*old_handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved;
        limited.rlim_cur = 512;
        ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
        const kkm_status status = kkm_save(f.m.get(), path.c_str());
        const std::string message = kkm_last_error();
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, old_handler);
        EXPECT_EQ(status, KKM_ERR_IO) << message;
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find("unchanged"), std::string::npos) << message;
    }
    EXPECT_EQ(read_all(path), old_bytes) << "the old file must be intact";
    size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1u) << "no temporary file may be left behind";
    // A save that succeeds replaces the file whole; through a symbolic link, the link stays.
    const std::string link = (dir / "link.kkm").string();
    ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
    ASSERT_TRUE(Ok(kkm_save(f.m.get(), link.c_str())));
    EXPECT_EQ(read_all(path), std::string(bytes.begin(), bytes.end()));
    struct stat st {};
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    Model loaded = make_model();
    EXPECT_TRUE(Ok(kkm_load(loaded.get(), link.c_str())));
    // A directory in the way: IO naming the path, nothing left behind.
    const std::string sub = (dir / "sub.kkm").string();
    std::filesystem::create_directory(sub);
    EXPECT_TRUE(Fails(kkm_save(f.m.get(), sub.c_str()), KKM_ERR_IO, {S(sub)}));
    files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 3u);
    std::filesystem::remove_all(dir);
}

TEST(BadInputModel, LoadFileThatIsNotAModel) {
    SmallFit f;
    std::vector<int32_t> before(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, before.data(), nullptr)));
    const std::string path = ::testing::TempDir() + "kkm_bad_input_not_a_model.txt";
    {
        std::ofstream out(path, std::ios::binary);
        out << "k=3 method=exact\nthis is a text file, not a saved model\n";
    }
    EXPECT_TRUE(Fails(kkm_load(f.m.get(), path.c_str()), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);  // an empty file
    }
    EXPECT_TRUE(Fails(kkm_load(f.m.get(), path.c_str()), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    std::remove(path.c_str());
    // The model is unchanged.
    std::vector<int32_t> after(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, after.data(), nullptr)));
    EXPECT_EQ(after, before);
    EXPECT_EQ(get_param(f.m.get(), "method"), "exact");
}

TEST(BadInputModel, TruncatedFileIsAFormatError) {
    SmallFit f(kSmallNystrom);
    int64_t size = 0;
    ASSERT_TRUE(Ok(kkm_save_buffer(f.m.get(), nullptr, 0, &size)));
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    ASSERT_TRUE(Ok(kkm_save_buffer(f.m.get(), bytes.data(), size, &size)));
    const std::string path = ::testing::TempDir() + "kkm_bad_input_truncated.kkm";
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() / 2));
    }
    Model target = make_model("k=3");
    EXPECT_TRUE(Fails(kkm_load(target.get(), path.c_str()), KKM_ERR_FORMAT, {}));
    std::remove(path.c_str());
    expect_unfitted(target.get());
    EXPECT_EQ(get_param(target.get(), "k"), "3");
}

namespace {

// The anchor graph's heat map (graph=anchor): every value that feeds a new row's features is
// checked on load, with a valid checksum: a NaN in the projection, a non-positive bandwidth, a
// neighbour count outside [1, anchors], a normalise flag that is not 0 or 1. Bit flips and
// truncations anywhere are format errors.
TEST(CraftedModel, AnchorMapValuesAreValidated) {
    const Dataset ds = blobs(200, 3, 3, 5);
    Model m = make_model("k=3 kernel=heat graph=anchor anchors=40 seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::vector<unsigned char> bytes = save(m.get());
    const size_t q = find_tag(bytes, "ANCQ");
    uint64_t payload = 0;
    std::memcpy(&payload, bytes.data() + q + 4, 8);
    const auto crafted = [&](size_t at, const void* value, size_t size, std::initializer_list<Word> words) {
        std::vector<unsigned char> bad = bytes;
        std::memcpy(bad.data() + at, value, size);
        reseal(bad);
        Model target = make_model("");
        EXPECT_TRUE(
            Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT, words))
            << "offset " << at;
    };
    const float nan = kNaN;
    crafted(q + 4 + 8 + 16, &nan, sizeof nan, {W("ANCQ"), W("finite")});
    const double sigma2 = -1.0;
    crafted(q - 8, &sigma2, sizeof sigma2, {W("bandwidth")});
    const int64_t neighbours = 41;
    crafted(q - 16, &neighbours, sizeof neighbours, {W("neighbours"), W("41")});
    const uint32_t flag = 2;
    crafted(q + 12 + payload, &flag, sizeof flag, {W("normalise"), W("flag")});
    for (size_t i = 0; i < bytes.size(); i += 7) {
        std::vector<unsigned char> bad = bytes;
        bad[i] ^= static_cast<unsigned char>(1u << (i % 8));
        Model target = make_model("");
        ASSERT_TRUE(Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT))
            << "byte " << i;
        const std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + static_cast<long>(i));
        ASSERT_TRUE(Fails(kkm_load_buffer(target.get(), cut.data(), static_cast<int64_t>(cut.size())), KKM_ERR_FORMAT))
            << "length " << i;
    }
}

}  // namespace
