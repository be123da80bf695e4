// ZeroedArray (core/zeroed_buffer.h): every size starts out zero and holds what is written to
// it; a buffer that fills its huge pages (maps_huge_pages) starts on a huge-page boundary, and
// where the system grants transparent huge pages (THP "always" or "madvise") touching it costs
// a few page faults instead of one per 4 KiB (the first touch of a fit's buffers was a fixed
// cost of every fit: 11 µs per small page on the KVM guests the benchmarks ran on); one that
// would leave its last huge page mostly empty comes from the C library, which keeps it from
// one allocation to the next. Copies are deep, moves leave the source empty.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "core/zeroed_buffer.h"
#include "sanitized.h"

namespace kkm {
namespace {

bool huge_aligned(const void* p) {
    return reinterpret_cast<uintptr_t>(p) % kHugePageBytes == 0;
}

long minor_faults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

/// Whether THP is on for a mapping that asks for it (MADV_HUGEPAGE).
bool thp_for_madvise() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(in, line);
    return line.find("[always]") != std::string::npos || line.find("[madvise]") != std::string::npos;
}

// Sizes around each threshold: small (calloc), one huge page less one byte, exactly one,
// a partial last huge page rounded up (8,000,000 bytes: 3.8 huge pages) and one left in
// small pages (3 MB: a whole fourth huge page would add a third), and a large one.
class Sizes : public ::testing::TestWithParam<size_t> {};

TEST_P(Sizes, StartZeroHoldWhatIsWrittenAndMappedOnesStartOnAHugePage) {
    const size_t bytes = GetParam();
    ZeroedArray<unsigned char> a(bytes);
    ASSERT_EQ(a.size(), bytes);
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(huge_aligned(a.data()), maps_huge_pages(bytes)) << bytes << " bytes at " << static_cast<void*>(a.data());
    size_t nonzero = 0;
    for (size_t i = 0; i < bytes; i += 509) nonzero += a[i] != 0;
    EXPECT_EQ(a[bytes - 1], 0);
    EXPECT_EQ(nonzero, 0u);
    for (size_t i = 0; i < bytes; i += 4093) a[i] = static_cast<unsigned char>(1 + i % 251);
    a[bytes - 1] = 7;
    size_t wrong = 0;
    for (size_t i = 0; i < bytes - 1; i += 4093) wrong += a[i] != static_cast<unsigned char>(1 + i % 251);
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(a[bytes - 1], 7);
}

INSTANTIATE_TEST_SUITE_P(ZeroedArray, Sizes,
                         ::testing::Values(size_t{1}, size_t{4096}, kMappedBytes - 1, kMappedBytes, kMappedBytes + 1,
                                           size_t{3000000}, size_t{8000000}, size_t{40} << 20));

TEST(ZeroedArray, CopiesAreDeepAndMovesLeaveTheSourceEmpty) {
    ZeroedArray<double> a(kMappedBytes / sizeof(double));  // one whole huge page: mapped
    a[0] = 1.5;
    a[a.size() - 1] = -2.0;
    ZeroedArray<double> b(a);
    ASSERT_EQ(b.size(), a.size());
    EXPECT_NE(b.data(), a.data());
    EXPECT_TRUE(huge_aligned(b.data()));
    EXPECT_EQ(b[0], 1.5);
    EXPECT_EQ(b[b.size() - 1], -2.0);
    b[0] = 3.0;
    EXPECT_EQ(a[0], 1.5);
    ZeroedArray<double> c(std::move(a));
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty, by contract
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(c[0], 1.5);
    c = ZeroedArray<double>(5);
    EXPECT_EQ(c.size(), 5u);
    EXPECT_EQ(c[4], 0.0);
}

TEST(ZeroedArray, SizesThatOverflowAreRefused) {
    EXPECT_THROW(ZeroedArray<double>(SIZE_MAX / 4), std::bad_array_new_length);
    EXPECT_THROW(allocate_zeroed(SIZE_MAX - 1), std::bad_alloc);
}

// 8,000,000 bytes (a 1000×1000 eigen-decomposition's eigenvectors) are 1954 small pages; on
// huge pages they are 4 (the last one rounded up). Fewer than 100 passes; a buffer left to
// 4 KiB pages (1954), starting off a boundary, or with its last partial huge page in small
// pages (3 + 418) would not.
TEST(ZeroedArray, WhatIsMappedIsWholeHugePagesWithinASixteenth) {
    EXPECT_FALSE(maps_huge_pages(kMappedBytes - 1));
    EXPECT_TRUE(maps_huge_pages(kMappedBytes));
    EXPECT_FALSE(maps_huge_pages(kMappedBytes + 1));  // a second huge page nearly empty
    EXPECT_FALSE(maps_huge_pages(990 * 990 * 4));     // 3.92 MB: 0.27 MB more than a 16th
    EXPECT_TRUE(maps_huge_pages(8000000));            // 7.63 MiB in 4 huge pages
    EXPECT_TRUE(maps_huge_pages(size_t{30} << 20));
    EXPECT_TRUE(maps_huge_pages((size_t{40} << 20) + 1));  // from 32 MiB on, always
    EXPECT_TRUE(maps_huge_pages(SIZE_MAX - 1));            // refused when allocated, not here
}

// A buffer the C library keeps (its last huge page would be mostly empty): allocated, touched
// and freed again and again, as one kernel matrix per fit, it faults its pages in once, not
// at every allocation (a mapping would: 470 faults each time for 3.92 MB).
TEST(ZeroedArray, AnUnmappedBufferAllocatedAgainAndAgainFaultsItsPagesInOnce) {
    if (kkm_test::kSanitized) GTEST_SKIP() << "the sanitizers' allocators keep freed memory in quarantine";
    constexpr size_t kBytes = 990 * 990 * 4;
    ASSERT_FALSE(maps_huge_pages(kBytes));
    long last = 0;
    for (int round = 0; round < 5; ++round) {
        const long before = minor_faults();
        {
            ZeroedArray<unsigned char> a(kBytes);
            for (size_t i = 0; i < kBytes; i += 4096) a[i] = 1;
        }
        last = minor_faults() - before;
    }
    EXPECT_LT(last, 50) << "faults in the fifth round of allocating and touching " << kBytes << " bytes";
}

TEST(ZeroedArray, AMappedBufferIsTouchedInAFewPageFaultsWhereTheSystemGrantsHugePages) {
    if (kkm_test::kSanitized) GTEST_SKIP() << "the sanitizers' shadow memory faults in small pages beside the buffer";
    if (!thp_for_madvise()) GTEST_SKIP() << "transparent huge pages are off here (THP 'never')";
    constexpr size_t kBytes = 8000000;
    ZeroedArray<unsigned char> a(kBytes);
    const long before = minor_faults();
    for (size_t i = 0; i < kBytes; i += 4096) a[i] = 1;
    const long faults = minor_faults() - before;
    EXPECT_LT(faults, 100) << "faults touching " << kBytes << " bytes";
}

}  // namespace
}  // namespace kkm
