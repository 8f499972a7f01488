// What a replay writes for one exchange: status, headers and the body as a
// list of timed pieces, with its faults applied. Pure: no sockets or clocks,
// so the bytes a fault produces are tested without a server, and the same
// response, fault and seed always give the same plan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mockllm/fault.h"
#include "mockllm/trace.h"
#include "protocols/wire/sse_blocks.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {

struct Piece {
  std::int64_t at_ms = 0;            // recorded offset from the start of the response
  std::int64_t stall_ms_before = 0;  // an extra wait before this piece (a stall fault)
  std::string bytes;
  friend bool operator==(const Piece&, const Piece&) = default;
};

struct ResponsePlan {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  // besides content type and framing
  bool chunked = false;       // a streamed response (Transfer-Encoding: chunked)
  std::int64_t delay_ms = 0;  // wait before the status line
  std::vector<Piece> pieces;  // the body in the pieces it is written in
  std::size_t content_length =
      0;             // announced length of a non-chunked body (the whole body, also when cut)
  bool cut = false;  // close the connection after the pieces instead of ending cleanly
  // The pieces as written when nothing waits between them (--speed 0): runs
  // of pieces joined, split only before a stall. Equal to `pieces` when the
  // fault re-split the stream, whose pieces are always written one by one.
  std::vector<Piece> burst;
  bool resplit = false;  // a fault re-split the stream: its pieces are written one by one
  bool stalls = false;   // some piece has a stall before it
  bool paced = false;    // some piece is due after the start (at_ms > 0)
  // A chunked plan's `burst` framed as HTTP/1.1 chunks, one per piece, then
  // the last chunk: the whole body, written as one when nothing waits
  // (computed once, with the plan).
  std::string framed;

  std::string Body() const;      // the pieces joined
  std::size_t BodySize() const;  // their total size
};

// The plan for `response` under `fault`; `seed` drives `resplit` when the fault
// names no seed of its own. Streams keep their recorded pieces and times
// unless a fault changes them; faults apply in this order: event edits
// (drop_done, malformed_event, error_event), crlf, bom, keepalive_ms, resplit,
// stall, cut_after_events / cut_after_bytes. keepalive_ms inserts at most
// kMaxKeepAlives comments into one response.
// `surface` is the API surface of the exchange's request: a status fault's
// default body and 429 headers, drop_done's end event and an error_event are
// in its shape (mockllm/surface_errors.h, IsEndEvent in replay_plan.cpp;
// docs/mockllm.md, "Faults per surface").
inline constexpr std::size_t kMaxKeepAlives = 100000;
ResponsePlan PlanResponse(const RecordedResponse& response, const Fault& fault, std::uint64_t seed,
                          llmconform::wire::Surface surface = llmconform::wire::Surface::kChat);

// The byte offsets just past each SSE event in `stream` (after the blank line
// that ends a block holding a `data` field), any line ends: replay cuts and
// stalls streams where a client's parser dispatches (protocols/wire/sse_blocks.h).
using llmconform::wire::SseEventEnds;

// Splits `bytes` into pieces of 1..max_piece bytes chosen by `seed`
// (deterministic on every platform).
std::vector<std::string> SeededSplit(std::string_view bytes, std::uint64_t seed,
                                     std::size_t max_piece = 32);

// The body of an injected HTTP error in the shape of `surface`'s API
// (mockllm/surface_errors.h): OpenAI's error object for Chat and Responses
// (a 429's code "rate_limit_exceeded"), Anthropic's, Gemini's (a 429 with
// `retry_after_s` carries a RetryInfo detail).
OJson DefaultErrorBody(int status,
                       llmconform::wire::Surface surface = llmconform::wire::Surface::kChat,
                       std::optional<double> retry_after_s = std::nullopt);

}  // namespace llmconform::mockllm
