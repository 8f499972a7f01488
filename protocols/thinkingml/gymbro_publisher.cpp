#include "protocols/thinkingml/gymbro_publisher.h"

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/thinkingml/delta_splitter.h"

namespace llmconform::gymbro {
namespace {

// Insertion-ordered, so the ids come first as in the seed's examples.

std::string Dump(const OJson& j) { return DumpJson(j); }

void AddRoute(OJson& j, const RouteInfo& route) {
  j["provider"] = route.provider;
  j["resolved_model"] = route.resolved_model.empty() ? OJson(nullptr) : OJson(route.resolved_model);
  j["endpoint_id"] = route.endpoint_id;
}

OJson UpstreamId(const RouteInfo& route) {
  return route.upstream_request_id ? OJson(*route.upstream_request_id) : OJson(nullptr);
}

}  // namespace

EventPublisher::EventPublisher(std::string message_id, std::string request_id)
    : message_id_(std::move(message_id)), request_id_(std::move(request_id)) {}

StreamEvent EventPublisher::Status(std::string_view state, const RouteInfo& route) {
  OJson j{{"state", state}, {"message_id", message_id_}, {"request_id", request_id_}};
  if (state == "routed") {
    AddRoute(j, route);
    j["upstream_request_id"] = UpstreamId(route);
  }
  return {"status", Dump(j)};
}

std::vector<StreamEvent> EventPublisher::Deltas(std::string_view chunk) {
  std::vector<StreamEvent> out;
  for (std::string& piece : SplitDelta(chunk)) {
    reply_len_ += CountCodePoints(piece);
    OJson j{{"message_id", message_id_},
            {"request_id", request_id_},
            {"seq", next_seq_++},
            {"delta", std::move(piece)}};
    out.push_back({"content_delta", Dump(j)});
  }
  return out;
}

StreamEvent EventPublisher::Heartbeat(std::int64_t ts_ms) {
  OJson j{{"message_id", message_id_}, {"request_id", request_id_}, {"ts", ts_ms}};
  return {"heartbeat", Dump(j)};
}

StreamEvent EventPublisher::Completed(const RouteInfo& route) {
  finished_ = true;
  OJson j{{"message_id", message_id_}, {"request_id", request_id_}};
  AddRoute(j, route);
  j["upstream_request_id"] = UpstreamId(route);
  j["reply_len"] = reply_len_;
  j["metadata"] = nullptr;
  return {"completed", Dump(j)};
}

StreamEvent EventPublisher::Error(std::string_view code, std::string_view message,
                                  const RouteInfo& route) {
  finished_ = true;
  OJson j{{"message_id", message_id_},
          {"request_id", request_id_},
          {"code", code},
          {"message", message},
          {"error", message}};
  AddRoute(j, route);
  return {"error", Dump(j)};
}

}  // namespace llmconform::gymbro
