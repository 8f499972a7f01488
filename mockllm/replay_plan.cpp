#include "mockllm/replay_plan.h"

#include <algorithm>
#include <cctype>

#include "base/format.h"
#include "mockllm/surface_errors.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/sse_blocks.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

std::string Join(const std::vector<Piece>& pieces) {
  std::string out;
  for (const Piece& p : pieces) out += p.bytes;
  return out;
}

// The pieces as a stream timed by their recorded times.
llmconform::wire::TimedStream Timed(const std::vector<Piece>& pieces) {
  llmconform::wire::TimedStream stream;
  for (const Piece& p : pieces) stream.Append(p.bytes, p.at_ms);
  return stream;
}

// Makes a piece start at `offset`; returns its index (pieces.size() at the end).
std::size_t SplitAt(std::vector<Piece>& pieces, std::size_t offset) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (offset == at) return i;
    const std::size_t size = pieces[i].bytes.size();
    if (offset < at + size) {
      Piece tail = pieces[i];
      tail.stall_ms_before = 0;
      tail.bytes = pieces[i].bytes.substr(offset - at);
      pieces[i].bytes.resize(offset - at);
      pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
      return i + 1;
    }
    at += size;
  }
  return pieces.size();
}

// Re-cuts the stream so that each piece is one block (an event, a comment
// block, or a trailing partial block), timed by its last byte.
struct Block {
  std::string bytes;
  std::int64_t at_ms;
  bool has_data;  // an event: a complete block holding a data field
};

std::vector<Block> ToBlocks(const std::vector<Piece>& pieces) {
  const llmconform::wire::TimedStream stream = Timed(pieces);
  std::vector<Block> blocks;
  for (const llmconform::wire::SseBlock& b : llmconform::wire::SplitSseBlocks(stream))
    blocks.push_back({std::string(b.In(stream.bytes())), b.t_ms, b.IsEvent()});
  return blocks;
}

std::vector<Piece> FromBlocks(const std::vector<Block>& blocks) {
  std::vector<Piece> pieces;
  for (const Block& b : blocks) pieces.push_back(Piece{b.at_ms, 0, b.bytes});
  return pieces;
}

// The data payload of a one-event block, "" if it has none.
std::string EventData(std::string_view block) {
  auto parsed = llmconform::wire::ParseSse(block);
  return parsed.events.empty() ? "" : parsed.events.front().data;
}

// A payload that is no longer JSON: its first half, made unparseable.
std::string BrokenJson(std::string_view payload) {
  std::string broken(payload.substr(0, std::max<std::size_t>(1, payload.size() / 2)));
  if (nlohmann::json::accept(broken)) broken += ",";
  return broken;
}

std::string ReplaceEventData(std::string_view block, const std::string& data,
                             const std::string& replacement) {
  std::string out(block);
  if (!data.empty()) {
    if (auto at = out.find(data); at != std::string::npos)
      return out.replace(at, data.size(), replacement);
  }
  llmconform::wire::SseEvent ev;
  ev.data = replacement;
  return llmconform::wire::WriteSseEvent(ev);
}

// The event that ends a stream of `surface` (drop_done): Chat's `[DONE]`;
// the Responses API's terminal event (response.completed, .failed,
// .incomplete); Anthropic's `message_stop`. Gemini has no end marker: its
// last event, the one with finishReason and usage, is the end (`last`).
bool IsEndEvent(llmconform::wire::Surface surface, const std::string& data, bool last) {
  using llmconform::wire::Surface;
  if (surface == Surface::kGemini) return last;
  if (surface == Surface::kChat) return data == "[DONE]";
  const OJson j = OJson::parse(data, nullptr, false);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) return false;
  const std::string& type = j["type"].get_ref<const std::string&>();
  if (surface == Surface::kMessages) return type == "message_stop";
  return type == "response.completed" || type == "response.failed" || type == "response.incomplete";
}

void EditEvents(std::vector<Piece>& pieces, const Fault& f, llmconform::wire::Surface surface) {
  if (!f.drop_done && !f.malformed_event && !f.error_event_after) return;
  std::vector<Block> blocks = ToBlocks(pieces);
  std::size_t last_event = blocks.size();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].has_data) last_event = i;
  }
  std::vector<Block> out;
  std::string kept;  // the events kept so far (a response.failed rebuilds their output)
  std::int64_t data_index = 0;
  std::int64_t last_at = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    Block& b = blocks[i];
    if (f.error_event_after && b.has_data && data_index >= *f.error_event_after) break;
    if (b.has_data) {
      const std::string data = EventData(b.bytes);
      if (f.drop_done && IsEndEvent(surface, data, i == last_event)) continue;
      if (f.malformed_event && *f.malformed_event == data_index) {
        b.bytes = ReplaceEventData(b.bytes, data, BrokenJson(data));
      }
      ++data_index;
    }
    last_at = b.at_ms;
    if (f.error_event_failed) kept += b.bytes;
    out.push_back(std::move(b));
  }
  if (f.error_event_after) {
    const OJson& error =
        f.error_event_error.is_null() ? DefaultStreamError(surface) : f.error_event_error;
    out.push_back(Block{StreamErrorEvent(surface, error, f.error_event_failed, kept, data_index),
                        last_at, true});
  }
  pieces = FromBlocks(out);
}

void ToCrlf(std::vector<Piece>& pieces) {
  char prev = '\0';
  for (Piece& p : pieces) {
    std::string out;
    out.reserve(p.bytes.size() + p.bytes.size() / 8);
    for (char c : p.bytes) {
      if (c == '\n' && prev != '\r') out.push_back('\r');
      out.push_back(c);
      prev = c;
    }
    p.bytes = std::move(out);
  }
}

void InsertKeepAlives(std::vector<Piece>& pieces, std::int64_t every_ms) {
  const std::string comment = llmconform::wire::WriteSseComment("keep-alive") + "\n";
  std::vector<Block> blocks = ToBlocks(pieces);
  std::vector<Block> out;
  std::int64_t next_tick = every_ms;
  std::size_t inserted = 0;
  for (Block& b : blocks) {
    // At most kMaxKeepAlives: every 1 ms over a chunk at 10^12 ms would be
    // 10^12 comments, planned when the trace loads.
    while (next_tick <= b.at_ms && inserted < kMaxKeepAlives) {
      out.push_back(Block{comment, next_tick, false});
      next_tick += every_ms;
      ++inserted;
    }
    out.push_back(std::move(b));
  }
  pieces = FromBlocks(out);
}

void Resplit(std::vector<Piece>& pieces, std::uint64_t seed) {
  const llmconform::wire::TimedStream stream = Timed(pieces);
  std::vector<Piece> out;
  std::size_t offset = 0;
  for (std::string& bytes : SeededSplit(stream.bytes(), seed)) {
    offset += bytes.size();
    out.push_back(Piece{stream.TimeAt(offset - 1), 0, std::move(bytes)});
  }
  pieces = std::move(out);
}

// The offset just past the n-th event (n ≥ 1), or the end of the stream.
std::size_t EndOfEvents(const std::vector<Piece>& pieces, std::int64_t n) {
  const std::string all = Join(pieces);
  if (n <= 0) return 0;
  const auto ends = llmconform::wire::SseEventEnds(all);
  if (static_cast<std::size_t>(n) <= ends.size()) return ends[static_cast<std::size_t>(n) - 1];
  return all.size();
}

void Truncate(std::vector<Piece>& pieces, std::size_t offset) {
  pieces.resize(SplitAt(pieces, offset));
}

// Content-Type is set from the plan's own; the framing headers are the
// server's (IsFramingHeader).
bool SkippedHeader(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return lower == "content-type" || IsFramingHeader(lower);
}

// Runs of pieces joined into one, a new run at each stall.
std::vector<Piece> Burst(const std::vector<Piece>& pieces) {
  std::vector<Piece> out;
  for (const Piece& p : pieces) {
    if (out.empty() || p.stall_ms_before > 0) {
      out.push_back(p);
    } else {
      out.back().bytes += p.bytes;
      out.back().at_ms = p.at_ms;
    }
  }
  return out;
}

}  // namespace

std::string ResponsePlan::Body() const { return Join(pieces); }

std::size_t ResponsePlan::BodySize() const {
  std::size_t n = 0;
  for (const Piece& p : pieces) n += p.bytes.size();
  return n;
}

std::vector<std::string> SeededSplit(std::string_view bytes, std::uint64_t seed,
                                     std::size_t max_piece) {
  // splitmix64: the same sequence on every platform and standard library.
  std::uint64_t state = seed;
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  std::vector<std::string> out;
  while (!bytes.empty()) {
    const std::size_t n =
        std::min<std::size_t>(bytes.size(), 1 + next() % std::max<std::size_t>(1, max_piece));
    out.emplace_back(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  return out;
}

OJson DefaultErrorBody(int status, llmconform::wire::Surface surface,
                       std::optional<double> retry_after_s) {
  using llmconform::wire::Surface;
  const bool openai = surface == Surface::kChat || surface == Surface::kResponses;
  return SurfaceErrorBody(surface, status, Format("mockllm injected HTTP {}", status), "",
                          openai && status == 429 ? OJson("rate_limit_exceeded") : OJson(nullptr),
                          nullptr, status == 429 ? retry_after_s : std::nullopt);
}

ResponsePlan PlanResponse(const RecordedResponse& response, const Fault& f, std::uint64_t seed,
                          llmconform::wire::Surface surface) {
  ResponsePlan plan;
  plan.delay_ms = f.delay_ms;
  if (f.status) {
    plan.status = *f.status;
    plan.content_type = "application/json";
    std::string body;
    if (!f.body) {
      std::optional<double> retry_s = f.retry_after;
      if (!retry_s && f.retry_after_ms) retry_s = static_cast<double>(*f.retry_after_ms) / 1000;
      body = DefaultErrorBody(*f.status, surface, retry_s).dump();
    } else if (f.body->is_string()) {
      body = f.body->get<std::string>();
      plan.content_type = "text/plain";
    } else {
      body = f.body->dump();
    }
    if (f.retry_after) plan.headers.emplace_back("retry-after", SecondsText(*f.retry_after));
    if (f.retry_after_ms)
      plan.headers.emplace_back("retry-after-ms", std::to_string(*f.retry_after_ms));
    for (auto& [name, value] :
         RateLimitHeaders(surface, *f.status, f.retry_after, f.retry_after_ms)) {
      if (!f.headers.contains(name)) plan.headers.emplace_back(std::move(name), std::move(value));
    }
    for (auto it = f.headers.begin(); it != f.headers.end(); ++it) {
      if (SkippedHeader(it.key())) continue;
      plan.headers.emplace_back(it.key(), it->get<std::string>());
    }
    plan.pieces.push_back(Piece{0, 0, std::move(body)});
  } else {
    plan.status = response.status;
    plan.chunked = response.streamed;
    plan.content_type = response.Header("content-type");
    if (plan.content_type.empty())
      plan.content_type = response.streamed ? "text/event-stream" : "application/json";
    for (auto it = response.headers.begin(); it != response.headers.end(); ++it) {
      if (SkippedHeader(it.key())) continue;
      plan.headers.emplace_back(it.key(), it->get<std::string>());
    }
    if (response.streamed) {
      for (const Chunk& c : response.chunks) plan.pieces.push_back(Piece{c.t_ms, 0, c.raw});
    } else {
      plan.pieces.push_back(Piece{0, 0, response.BodyBytes()});
    }
  }
  if (plan.chunked) {
    EditEvents(plan.pieces, f, surface);
    if (f.crlf) ToCrlf(plan.pieces);
  }
  if (f.bom) {
    if (plan.pieces.empty()) plan.pieces.push_back(Piece{});
    plan.pieces.front().bytes.insert(0, llmconform::wire::kSseBom);
  }
  if (plan.chunked && f.keepalive_ms > 0) InsertKeepAlives(plan.pieces, f.keepalive_ms);
  if (f.resplit) Resplit(plan.pieces, f.seed.value_or(seed));
  plan.content_length = Join(plan.pieces).size();
  if (f.stall_ms > 0) {
    const std::size_t at = plan.chunked ? EndOfEvents(plan.pieces, f.stall_after_events) : 0;
    const std::size_t index = SplitAt(plan.pieces, at);
    if (index == plan.pieces.size())
      plan.pieces.push_back(Piece{Timed(plan.pieces).TimeAt(at), 0, ""});
    plan.pieces[index].stall_ms_before = f.stall_ms;
  }
  if (plan.chunked && f.cut_after_events) {
    Truncate(plan.pieces, EndOfEvents(plan.pieces, *f.cut_after_events));
    plan.cut = true;
  }
  if (f.cut_after_bytes) {
    const std::size_t total = Join(plan.pieces).size();
    Truncate(plan.pieces,
             std::min<std::size_t>(total, static_cast<std::size_t>(*f.cut_after_bytes)));
    plan.cut = true;
  }
  // Empty pieces carry nothing to write unless they hold a stall.
  std::erase_if(plan.pieces,
                [](const Piece& p) { return p.bytes.empty() && p.stall_ms_before == 0; });
  plan.burst = f.resplit ? plan.pieces : Burst(plan.pieces);
  plan.resplit = f.resplit;
  for (const Piece& p : plan.pieces) {
    plan.stalls = plan.stalls || p.stall_ms_before > 0;
    plan.paced = plan.paced || p.at_ms > 0;
  }
  if (plan.chunked) {
    for (const Piece& p : plan.burst) {
      if (p.bytes.empty()) continue;
      plan.framed += Format("{:x}\r\n", p.bytes.size());
      plan.framed += p.bytes;
      plan.framed += "\r\n";
    }
    plan.framed += "0\r\n\r\n";
  }
  return plan;
}

}  // namespace llmconform::mockllm
