#include "core/row_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace kkm {
namespace {

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};

size_t round_down(size_t v) {
    return v / RowStream::kAlign * RowStream::kAlign;
}

size_t round_up(size_t v) {
    return (v + RowStream::kAlign - 1) / RowStream::kAlign * RowStream::kAlign;
}

/// Bytes one buffer holds: a segment widened to whole aligned blocks on both sides.
size_t buffer_bytes(int64_t d, int64_t segment_rows) {
    return round_up(static_cast<size_t>(segment_rows) * static_cast<size_t>(d) * sizeof(float)) +
           2 * RowStream::kAlign;
}

}  // namespace

/// One read-ahead buffer: which segment it holds (or is being read into), and whether the
/// read went through (else the segment is handed out from the mapping).
struct RowStream::Slot {
    std::unique_ptr<char, FreeDeleter> buffer;
    size_t bytes = 0;
    int64_t segment = -1;  ///< the segment it holds, -1: free
    bool ready = false;    ///< the read finished
    const float* rows = nullptr;  ///< into buffer, or NULL: read from the mapping
};

RowStream::RowStream(const InputPages* pages, ConstMatrix X, int64_t begin, int64_t end, int64_t segment_rows,
                     int64_t stride)
    : pages_(pages),
      X_(X),
      begin_(begin),
      end_(std::max(begin, end)),
      segment_rows_(std::max<int64_t>(1, segment_rows)),
      stride_(std::max(segment_rows_, stride)),
      segments_((end_ - begin_ + stride_ - 1) / stride_) {
    if (pages_ == nullptr || pages_->direct() == nullptr || segments_ == 0) return;
    const size_t bytes = buffer_bytes(X_.cols, segment_rows_);
    for (int s = 0; s < kSlots; ++s) {
        auto slot = std::make_unique<Slot>();
        slot->buffer.reset(static_cast<char*>(std::aligned_alloc(kAlign, bytes)));
        if (!slot->buffer) throw std::bad_alloc();
        slot->bytes = bytes;
        slots_.push_back(std::move(slot));
    }
    reader_ = std::thread([this] { read_ahead(); });
}

RowStream::~RowStream() {
    if (!reader_.joinable()) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    reader_.join();
}

int64_t RowStream::segment_count(int64_t s) const {
    return std::min(segment_rows_, end_ - segment_begin(s));
}

double RowStream::footprint(int64_t d, int64_t segment_rows) {
    return static_cast<double>(kSlots) * static_cast<double>(buffer_bytes(d, segment_rows));
}

int64_t RowStream::segment_rows(int64_t d, int64_t block_rows) {
    const auto row_bytes = static_cast<int64_t>(std::max<int64_t>(d, 1) * sizeof(float));
    const int64_t blocks = std::max<int64_t>(1, static_cast<int64_t>(kSegmentBytes) / row_bytes / block_rows);
    return blocks * block_rows;
}

/// Reads segment s into the slot: whole aligned blocks around its bytes, retried until they
/// are all there; false on any error or a short file (the mapping serves the segment then).
bool RowStream::read_segment(int64_t s, Slot& slot) const {
    const DirectFile& file = *pages_->direct();
    const size_t row_bytes = static_cast<size_t>(X_.cols) * sizeof(float);
    const size_t first = file.offset + static_cast<size_t>(segment_begin(s)) * row_bytes;
    const size_t last = first + static_cast<size_t>(segment_count(s)) * row_bytes;
    const size_t from = round_down(first), to = round_up(last);
    if (to - from > slot.bytes) return false;
    size_t got = 0;
    while (from + got < last) {
        const ssize_t r = ::pread(file.fd, slot.buffer.get() + got, to - from - got, static_cast<off_t>(from + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += static_cast<size_t>(r);
        if (got % kAlign != 0 && from + got < last) return false;  // O_DIRECT resumes only aligned
    }
    slot.rows = reinterpret_cast<const float*>(slot.buffer.get() + (first - from));
    return true;
}

void RowStream::read_ahead() {
    for (int64_t s = 0; s < segments_; ++s) {
        Slot& slot = *slots_[static_cast<size_t>(s % kSlots)];
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || slot.segment < 0; });
            if (stop_) return;
            slot.segment = s;
            slot.ready = false;
        }
        const bool read = read_segment(s, slot);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (!read) slot.rows = nullptr;
            slot.ready = true;
        }
        changed_.notify_all();
    }
}

bool RowStream::next(ConstMatrix& rows, int64_t& first) {
    if (next_ > 0 && !slots_.empty()) {  // the previous segment's buffer goes back to the reader
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            slots_[static_cast<size_t>((next_ - 1) % kSlots)]->segment = -1;
        }
        changed_.notify_all();
    }
    if (next_ >= segments_) return false;
    const int64_t s = next_++;
    first = segment_begin(s);
    const int64_t count = segment_count(s);
    rows = X_.slice(first, count);
    if (slots_.empty()) {
        if (pages_ != nullptr) {
            const size_t row_bytes = static_cast<size_t>(X_.cols) * sizeof(float);
            pages_->passed(X_.row(begin_), static_cast<size_t>(end_ - begin_) * row_bytes,
                           static_cast<size_t>(first - begin_) * row_bytes,
                           static_cast<size_t>(first - begin_ + count) * row_bytes);
        }
        return true;
    }
    Slot& slot = *slots_[static_cast<size_t>(s % kSlots)];
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return slot.segment == s && slot.ready; });
    if (slot.rows != nullptr) rows.data = slot.rows;
    return true;
}

}  // namespace kkm
