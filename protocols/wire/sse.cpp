#include "protocols/wire/sse.h"

#include <algorithm>
#include <cstring>

#include "protocols/wire/sse_blocks.h"

namespace llmconform::wire {
namespace {

bool AllAsciiDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void SseParser::Feed(std::string_view bytes, std::vector<SseEvent>& out) {
  Feed(bytes, [&out](const SseEventView& ev) {
    out.push_back(SseEvent{std::string(ev.event), std::string(ev.data), std::string(ev.id)});
  });
}

void SseParser::FeedImpl(std::string_view bytes, Sink sink, void* ctx) {
  bytes_fed_ += bytes.size();
  if (!bom_checked_) {
    // Hold bytes back until we know whether the stream starts with a BOM.
    partial_.append(bytes);
    const std::size_t n = std::min(partial_.size(), kSseBom.size());
    if (std::string_view(partial_).substr(0, n) != kSseBom.substr(0, n)) {
      bom_checked_ = true;
    } else if (partial_.size() >= kSseBom.size()) {
      partial_.erase(0, kSseBom.size());
      bom_checked_ = true;
    } else {
      return;  // still a prefix of the BOM: wait for more
    }
    std::string held;
    held.swap(partial_);
    FeedImpl(held, sink, ctx);
    bytes_fed_ -= held.size();
    OwnData();  // `held` dies here
    return;
  }

  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (skip_lf_ && p < end) {
    if (*p == '\n') ++p;
    skip_lf_ = false;
  }
  // Next CR position, found once per run of the buffer (CR line ends are rare).
  const char* next_cr =
      static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)));
  while (p < end) {
    const char* lf =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (next_cr && next_cr < p) {
      next_cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)));
    }
    const char* eol = lf;
    if (next_cr && (!lf || next_cr < lf)) eol = next_cr;
    if (!eol) {
      partial_.append(p, end);
      break;
    }
    std::string_view line(p, static_cast<std::size_t>(eol - p));
    if (!partial_.empty()) {
      partial_.append(line);
      ProcessLine(partial_, /*in_input=*/false, sink, ctx);
      partial_.clear();
    } else {
      ProcessLine(line, /*in_input=*/true, sink, ctx);
    }
    p = eol + 1;
    if (*eol == '\r') {
      if (p < end) {
        if (*p == '\n') ++p;
      } else {
        skip_lf_ = true;
      }
    }
  }
  OwnData();  // views into `bytes` end with this call
}

void SseParser::OwnData() {
  if (data_is_view_) {
    data_.assign(data_view_);
    data_is_view_ = false;
  }
}

void SseParser::Finish() {
  // A line without its end never completes; an event not followed by a blank
  // line is never dispatched. Both are dropped.
  partial_.clear();
  data_.clear();
  data_is_view_ = false;
  has_data_ = false;
  event_type_.clear();
  skip_lf_ = false;
}

// Decides WIRE-SSE-FRAMING: each line as WHATWG HTML §9.2.6 processes it.
void SseParser::ProcessLine(std::string_view line, bool in_input, Sink sink, void* ctx) {
  if (line.empty()) {
    if (has_data_) {
      const SseEventView ev{
          event_type_.empty() ? std::string_view("message") : std::string_view(event_type_),
          data_is_view_ ? data_view_ : std::string_view(data_), last_event_id_};
      sink(ctx, ev);
    }
    data_.clear();
    data_is_view_ = false;
    has_data_ = false;
    event_type_.clear();
    return;
  }
  const SseLine parsed = ReadSseLine(line);
  if (parsed.kind == SseLine::Kind::kComment) {
    ++comments_;
    return;
  }
  const std::string_view field = parsed.field;
  const std::string_view value = parsed.value;
  if (field == "data") {
    if (!has_data_ && in_input) {
      data_view_ = value;  // the common case: one data line, no copy
      data_is_view_ = true;
    } else {
      OwnData();
      if (has_data_) data_.push_back('\n');
      data_.append(value);
    }
    has_data_ = true;
  } else if (field == "event") {
    event_type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (field == "retry") {
    // Digits only, as the standard says; a value past 2^64 - 1 holds no
    // reconnection time we can keep, and is ignored like one with other
    // characters (never wrapped).
    if (AllAsciiDigits(value)) {
      std::uint64_t v = 0;
      bool fits = true;
      for (char c : value) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (v > (UINT64_MAX - digit) / 10) fits = false;
        if (!fits) break;
        v = v * 10 + digit;
      }
      if (fits) retry_ = v;
    }
  }
  // Any other field is ignored, as the standard says.
}

SseParseResult ParseSse(std::string_view stream, std::vector<std::size_t> splits) {
  std::sort(splits.begin(), splits.end());
  SseParser parser;
  SseParseResult result;
  std::size_t at = 0;
  for (std::size_t s : splits) {
    s = std::min(s, stream.size());
    if (s <= at) continue;
    parser.Feed(stream.substr(at, s - at), result.events);
    at = s;
  }
  parser.Feed(stream.substr(at), result.events);
  parser.Finish();
  result.retry = parser.retry();
  result.comments = parser.comment_count();
  return result;
}

std::string WriteSseEvent(const SseEvent& event) {
  std::string out;
  out.reserve(event.data.size() + event.event.size() + 16);
  if (!event.event.empty() && event.event != "message") {
    out.append("event: ").append(event.event).push_back('\n');
  }
  if (!event.id.empty()) out.append("id: ").append(event.id).push_back('\n');
  std::string_view rest = event.data;
  while (true) {
    const auto eol = rest.find_first_of("\r\n");
    out.append("data: ").append(rest.substr(0, eol)).push_back('\n');
    if (eol == std::string_view::npos) break;
    const std::size_t skip =
        (rest[eol] == '\r' && eol + 1 < rest.size() && rest[eol + 1] == '\n') ? 2 : 1;
    rest.remove_prefix(eol + skip);
  }
  out.push_back('\n');
  return out;
}

std::string WriteSseData(std::string_view payload) {
  return WriteSseEvent(SseEvent{.event = "message", .data = std::string(payload), .id = ""});
}

std::string WriteSseComment(std::string_view text) {
  std::string out(": ");
  out.append(text).push_back('\n');
  return out;
}

}  // namespace llmconform::wire
