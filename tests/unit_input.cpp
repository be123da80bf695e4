// The input side of larger-than-memory fits: scan_rows (the one pass over X) against a
// float64 reference and across thread counts, InputPages' view of where rows live, the
// cgroup limit reader and max_memory_mb=auto, RowStream's direct reads and the moments' sample.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/input_pages.h"
#include "core/row_stream.h"
#include "core/system_memory.h"
#include "io/mapped_file.h"
#include "kernels/kernel.h"
#include "kernels/row_scan.h"

namespace {

kkm::Matrix random_rows(int64_t n, int64_t d, double offset, uint32_t seed) {
    kkm::Matrix X(n, d);
    std::mt19937 gen(seed);
    std::normal_distribution<double> N(0.0, 1.0);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < d; ++j) X.row(i)[j] = static_cast<float>(offset + (j % 3 + 1) * N(gen));
    }
    return X;
}

TEST(ScanRows, MomentsMatchAFloat64TwoPassReferenceForAnyThreadCount) {
    for (const int64_t n : {1, 7, 31, 33, 1000, 5003}) {
        const kkm::Matrix X = random_rows(n, 5, 1e3, static_cast<uint32_t>(n));
        std::vector<float> w(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = 0.25f + static_cast<float>(i % 4);
        for (const bool weighted : {false, true}) {
            const std::vector<float> ws = weighted ? w : std::vector<float>{};
            double total = 0;
            std::vector<double> mean(5, 0.0);
            for (int64_t i = 0; i < n; ++i) {
                const double wi = weighted ? w[static_cast<size_t>(i)] : 1.0;
                total += wi;
                for (int64_t t = 0; t < 5; ++t) mean[static_cast<size_t>(t)] += wi * X.row(i)[t];
            }
            for (double& v : mean) v /= total;
            double spread = 0;
            for (int64_t i = 0; i < n; ++i) {
                for (int64_t t = 0; t < 5; ++t) {
                    const double diff = X.row(i)[t] - mean[static_cast<size_t>(t)];
                    spread += (weighted ? w[static_cast<size_t>(i)] : 1.0) * diff * diff;
                }
            }
            const kkm::RowMoments one = kkm::scan_rows(X.view(), ws, kkm::Moments::spread, 0, 1);
            const kkm::RowMoments two = kkm::scan_rows(X.view(), ws, kkm::Moments::spread, 0, 2);
            EXPECT_NEAR(one.weight, total, 1e-12 * total);
            EXPECT_NEAR(one.spread, spread, 1e-10 * spread + 1e-9) << "n=" << n;
            for (int64_t t = 0; t < 5; ++t)
                EXPECT_NEAR(one.mean[static_cast<size_t>(t)], mean[static_cast<size_t>(t)], 1e-9);
            EXPECT_EQ(one.spread, two.spread);  // bit for bit
            EXPECT_EQ(one.sums, two.sums);
        }
    }
}

TEST(ScanRows, TheShiftIsTheChunkedSumsOfTheOldPass) {
    // centring_shift's own pass summed 32 fixed chunks row by row: the fused pass keeps those
    // sums, so the shift is the same float for the same rows whether or not moments are passed.
    const kkm::Matrix X = random_rows(4001, 7, 50.0, 3);
    const kkm::RowMoments m = kkm::scan_rows(X.view(), {}, kkm::Moments::spread, 0, 2);
    std::vector<double> sums(8, 0.0);
    const int64_t per = (X.rows + 31) / 32;
    for (int64_t c = 0; c < 32; ++c) {
        std::vector<double> chunk(8, 0.0);
        for (int64_t i = c * per; i < std::min(X.rows, (c + 1) * per); ++i) {
            for (int64_t t = 0; t < 7; ++t) chunk[static_cast<size_t>(t)] += 1.0 * X.row(i)[t];
            chunk[7] += 1.0;
        }
        for (size_t t = 0; t < 8; ++t) sums[t] += chunk[t];
    }
    for (size_t t = 0; t < 7; ++t) EXPECT_EQ(m.sums[t], sums[t]);
    const std::vector<float> shift = kkm::centring_shift(kkm::KernelType::rbf, X.view(), {}, 1, kkm::solo_comm(), &m);
    for (size_t t = 0; t < 7; ++t) EXPECT_EQ(shift[t], static_cast<float>(sums[t] / sums[7]));
}

TEST(ScanRows, SumsAloneAreTheSameBitsAsWithTheSpread) {
    // Moments::sums skips the spread's two in-cache reads and adds four rows per load of a sum:
    // the same additions in the same order, so the same sums (weighted or not, blocks of rows
    // that are not a multiple of four), and no spread.
    const kkm::Matrix X = random_rows(5003, 9, 1e3, 17);
    std::vector<float> w(static_cast<size_t>(X.rows));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f + static_cast<float>(i % 7) * 0.37f;
    for (const bool weighted : {false, true}) {
        const std::vector<float> ws = weighted ? w : std::vector<float>{};
        const kkm::RowMoments full = kkm::scan_rows(X.view(), ws, kkm::Moments::spread, 0, 2);
        const kkm::RowMoments sums = kkm::scan_rows(X.view(), ws, kkm::Moments::sums, 0, 1);
        EXPECT_EQ(sums.sums, full.sums);
        EXPECT_EQ(sums.mean, full.mean);
        EXPECT_EQ(sums.weight, full.weight);
        EXPECT_GT(full.spread, 0.0);
        EXPECT_EQ(sums.spread, 0.0);
        // Row by row in the 32 fixed chunks, as centring_shift's own pass summed them.
        const int64_t per = (X.rows + 31) / 32;
        std::vector<double> total(10, 0.0);
        for (int64_t c = 0; c < 32; ++c) {
            std::vector<double> chunk(10, 0.0);
            for (int64_t i = c * per; i < std::min(X.rows, (c + 1) * per); ++i) {
                const double wi = weighted ? w[static_cast<size_t>(i)] : 1.0;
                for (int64_t t = 0; t < 9; ++t) chunk[static_cast<size_t>(t)] += wi * X.row(i)[t];
                chunk[9] += wi;
            }
            for (size_t t = 0; t < 10; ++t) total[t] += chunk[t];
        }
        for (size_t t = 0; t < 9; ++t) EXPECT_EQ(sums.sums[t], total[t]) << "column " << t;
        EXPECT_EQ(sums.weight, total[9]);
    }
}

TEST(ScanRows, NamesTheFirstNonFiniteValueWithTheRowOffset) {
    kkm::Matrix X = random_rows(3000, 4, 0.0, 9);
    X.row(2999)[3] = NAN;
    X.row(1500)[2] = INFINITY;
    try {
        kkm::scan_rows(X.view(), {}, kkm::Moments::none, 100, 2);
        FAIL() << "no error";
    } catch (const kkm::Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_INVALID_DATA);
        EXPECT_NE(std::string(e.what()).find("row 1600, column 2"), std::string::npos) << e.what();
    }
}

TEST(InputPages, OnlyReadOnlyFileMappingsGetAdvice) {
    std::vector<float> own(1 << 16, 1.0f);
    EXPECT_FALSE(kkm::InputPages(own.data(), own.size() * 4).file());  // the caller's memory: no advice
    const std::string path = ::testing::TempDir() + "kkm_input_pages_" + std::to_string(::getpid());
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(own.data()), static_cast<std::streamsize>(own.size() * 4));
    }
    {
        const kkm::io::MappedFile file(path);
        const kkm::InputPages pages(file.data(), file.size());
        EXPECT_TRUE(pages.file());
        EXPECT_FALSE(pages.drops());                      // 256 KiB: far below half the memory, kept for the next pass
        pages.passed(file.data(), file.size(), 0, 5000);  // advice per region: a small file is one
        pages.passed(file.data(), file.size(), 5000, file.size());
        EXPECT_EQ(reinterpret_cast<const float*>(file.data())[1000], 1.0f);
    }
    std::filesystem::remove(path);
}

/// X written to a file in the test directory (a disk, where O_DIRECT works), removed after.
class RowFile {
public:
    explicit RowFile(const kkm::Matrix& X)
        : path_(::testing::TempDir() + "kkm_rows_" + std::to_string(::getpid()) + "_" + std::to_string(X.rows)) {
        std::ofstream out(path_, std::ios::binary);
        out.write(reinterpret_cast<const char*>(X.data()), static_cast<std::streamsize>(X.rows * X.cols * 4));
    }
    ~RowFile() { std::filesystem::remove(path_); }
    const std::string& path() const { return path_; }
    /// Whether the file system takes O_DIRECT (tmpfs does not: the mapping is read then).
    bool direct_possible() const {
        const int fd = ::open(path_.c_str(), O_RDONLY | O_DIRECT);
        if (fd >= 0) ::close(fd);
        return fd >= 0;
    }

private:
    std::string path_;
};

TEST(RowStream, DirectReadsHandOutTheMappedRowsAtTheSameAlignment) {
    const kkm::Matrix X = random_rows(5003, 7, 0.0, 11);  // 28-byte rows: segments straddle pages
    const RowFile file(X);
    if (!file.direct_possible()) GTEST_SKIP() << ::testing::TempDir() << " refuses O_DIRECT";
    const kkm::io::MappedFile mapped(file.path());
    const kkm::ConstMatrix M{reinterpret_cast<const float*>(mapped.data()), X.rows, X.cols};
    const kkm::InputPages direct(M.data, mapped.size(), kkm::DirectReads::always);
    ASSERT_NE(direct.direct(), nullptr);
    EXPECT_EQ(kkm::InputPages(M.data, mapped.size(), kkm::DirectReads::never).direct(), nullptr);
    for (const auto& [begin, end, segment] : std::vector<std::array<int64_t, 3>>{
             {0, 5003, 256}, {1, 5002, 97}, {4000, 5003, 1}, {17, 18, 5}, {0, 5003, 100000}, {300, 300, 8}}) {
        kkm::RowStream stream(&direct, M, begin, end, segment);
        kkm::ConstMatrix rows;
        int64_t first = 0, expect = begin;
        while (stream.next(rows, first)) {
            ASSERT_EQ(first, expect);
            ASSERT_EQ(rows.rows, std::min(segment, end - first));
            EXPECT_NE(rows.data, M.row(first));  // from a buffer, not the mapping
            EXPECT_EQ(reinterpret_cast<uintptr_t>(rows.data) % 4096, reinterpret_cast<uintptr_t>(M.row(first)) % 4096);
            ASSERT_EQ(std::memcmp(rows.data, M.row(first), static_cast<size_t>(rows.rows * X.cols) * 4), 0);
            expect += rows.rows;
        }
        EXPECT_EQ(expect, end);
    }
    {  // a pass that ends early joins its reader
        kkm::RowStream stream(&direct, M, 0, 5003, 10);
        kkm::ConstMatrix rows;
        int64_t first = 0;
        ASSERT_TRUE(stream.next(rows, first));
    }
}

TEST(ScanRows, DirectReadsAndTheSampleGiveTheSameBitsAsMemory) {
    const kkm::Matrix X = random_rows(100000, 9, 50.0, 5);
    const RowFile file(X);
    const kkm::io::MappedFile mapped(file.path());
    const kkm::ConstMatrix M{reinterpret_cast<const float*>(mapped.data()), X.rows, X.cols};
    const kkm::InputPages direct(M.data, mapped.size(), kkm::DirectReads::always);
    // The sample: every 4th block of 256 rows of each of the 32 chunks (3125 rows: 3 blocks).
    const int64_t per_chunk = (100000 + 31) / 32;
    std::vector<int64_t> idx;
    for (int64_t c = 0; c < 32; ++c) {
        for (int64_t b = c * per_chunk; b < (c + 1) * per_chunk; b += 4 * 256) {
            for (int64_t i = b; i < std::min((c + 1) * per_chunk, b + 256); ++i) idx.push_back(i);
        }
    }
    for (const int64_t every : {int64_t{0}, int64_t{4}}) {
        const kkm::RowMoments own = kkm::scan_rows(X.view(), {}, kkm::Moments::spread, 0, 2, nullptr, every);
        const kkm::RowMoments read = kkm::scan_rows(M, {}, kkm::Moments::spread, 0, 2, &direct, every);
        EXPECT_EQ(own.spread, read.spread);
        EXPECT_EQ(own.sums, read.sums);
        EXPECT_EQ(own.weight, every == 0 ? 100000.0 : static_cast<double>(idx.size()));
    }
    const kkm::Matrix S = kkm::gather_rows(X.view(), idx);
    const kkm::RowMoments sample = kkm::scan_rows(X.view(), {}, kkm::Moments::spread, 0, 1, nullptr, 4);
    const kkm::RowMoments whole = kkm::scan_rows(S.view(), {}, kkm::Moments::spread, 0, 1);
    EXPECT_NEAR(sample.spread, whole.spread, 1e-9 * whole.spread);
    // A bad row outside the sample is not seen by it; inside it, it is named.
    kkm::Matrix Y = copy_of(X.view());
    Y.row(300)[3] = NAN;
    EXPECT_NO_THROW(kkm::scan_rows(Y.view(), {}, kkm::Moments::spread, 0, 2, nullptr, 4));
    EXPECT_THROW(kkm::scan_rows(Y.view(), {}, kkm::Moments::spread, 0, 2, nullptr, 0), kkm::Error);
    Y.row(per_chunk + 1024 + 9)[0] = NAN;
    EXPECT_THROW(kkm::scan_rows(Y.view(), {}, kkm::Moments::spread, 0, 2, nullptr, 4), kkm::Error);
    EXPECT_EQ(kkm::moments_sample(2000, 2000), 0);
    EXPECT_EQ(kkm::moments_sample(kkm::kSampledMomentsAbove, kkm::kSampledMomentsAbove), 0);
    // 2^21 + 32·256 rows: 257 blocks per chunk, 64 wanted: every 5th.
    const int64_t n = kkm::kSampledMomentsAbove + 32 * 256;
    EXPECT_EQ(kkm::moments_sample(n, n), 5);
    EXPECT_EQ(kkm::moments_sample(n / 2, n), 5);  // half the rows on this rank, half the sample
}

TEST(SystemMemory, CgroupLimitFilesAndTheAutoBudget) {
    const std::string path = ::testing::TempDir() + "kkm_cgroup_" + std::to_string(::getpid());
    const auto value_of = [&](const char* text) {
        std::ofstream(path) << text;
        return kkm::cgroup_limit(path);
    };
    EXPECT_EQ(value_of("1073741824\n"), std::optional<uint64_t>(1073741824));
    EXPECT_FALSE(value_of("max\n").has_value());  // v2: no limit
    EXPECT_FALSE(value_of("").has_value());
    EXPECT_FALSE(value_of("-5").has_value());
    EXPECT_FALSE(kkm::cgroup_limit("/nonexistent/memory.max").has_value());
    std::filesystem::remove(path);
    const double physical = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
    EXPECT_LE(static_cast<double>(kkm::memory_limit_bytes()), physical);
    EXPECT_EQ(kkm::auto_memory_mb(),
              static_cast<int64_t>(std::floor(0.75 * static_cast<double>(kkm::memory_limit_bytes()) / 1048576.0)));
}

// max_memory_mb=auto under ulimit -v (issue 60): the budget followed the physical memory and
// the cgroup only, so a fit or the CLI's input under an address-space limit ran out of memory
// instead of being refused by the budget. The room the soft RLIMIT_AS leaves bounds it now.
TEST(SystemMemory, AnAddressSpaceLimitBoundsTheAutoBudget) {
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_AS, &old), 0);
    const uint64_t used = kkm::process_status_field("VmSize:") * 1024;
    ASSERT_GT(used, 0u);
    constexpr uint64_t kRoom = uint64_t{1} << 30;
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < used + kRoom)
        GTEST_SKIP() << "already limited below VmSize + 1 GiB";
    rlimit capped = old;
    capped.rlim_cur = static_cast<rlim_t>(used + kRoom);
    ASSERT_EQ(::setrlimit(RLIMIT_AS, &capped), 0);
    const uint64_t room = kkm::address_space_room(), limit = kkm::memory_limit_bytes();
    const int64_t mb = kkm::auto_memory_mb();
    ASSERT_EQ(::setrlimit(RLIMIT_AS, &old), 0);  // before any assertion can fail
    EXPECT_LE(room, kRoom);
    EXPECT_GT(room, kRoom - (uint64_t{64} << 20));  // VmSize moves little between the calls
    EXPECT_LE(limit, room);
    EXPECT_LE(mb, static_cast<int64_t>(0.75 * 1024));
    EXPECT_GE(mb, static_cast<int64_t>(0.75 * 960));
}

}  // namespace
