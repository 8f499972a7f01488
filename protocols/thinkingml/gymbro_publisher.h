// The events of one message's stream as the GymBro reference service
// publishes them (seed 002 §6; docs/protocols.md "gymbro SSE"): every data object
// starts with message_id and request_id; content_delta texts are split by
// SplitDelta and numbered from 1; `completed` carries reply_len (code points of
// everything published) and never the text; `error` carries code, message and
// the legacy `error` equal to message. Pure: the caller supplies times and
// decides what happens when; EventChecker judges the result valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::gymbro {

// Where a message was routed (the routed status and the terminal events carry it).
struct RouteInfo {
  std::string provider = "openai";
  std::string resolved_model;  // "" → null
  std::int64_t endpoint_id = 1;
  std::optional<std::string> upstream_request_id;
};

class EventPublisher {
 public:
  EventPublisher(std::string message_id, std::string request_id);

  // `status` with state queued | working | routed; routed also carries the route.
  StreamEvent Status(std::string_view state, const RouteInfo& route = {});
  // The content_delta events for one upstream text chunk (none for "").
  std::vector<StreamEvent> Deltas(std::string_view chunk);
  StreamEvent Heartbeat(std::int64_t ts_ms);
  // Terminal events. After either, finished() is true; the caller publishes
  // nothing more.
  StreamEvent Completed(const RouteInfo& route);
  StreamEvent Error(std::string_view code, std::string_view message, const RouteInfo& route);

  const std::string& message_id() const { return message_id_; }
  const std::string& request_id() const { return request_id_; }
  bool finished() const { return finished_; }
  std::int64_t next_seq() const { return next_seq_; }
  std::size_t reply_len() const { return reply_len_; }

 private:
  std::string message_id_;
  std::string request_id_;
  std::int64_t next_seq_ = 1;
  std::size_t reply_len_ = 0;
  bool finished_ = false;
};

}  // namespace llmconform::gymbro
