#include "protocols/thinkingml/gymbro_events.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/format.h"
#include "base/json.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/thinkingml/xml_text.h"
#include "protocols/wire/chat.h"

namespace llmconform::gymbro {
namespace {

// Fields a completed event must not use to carry the reply text.
constexpr std::array<std::string_view, 5> kReplyTextFields = {"reply", "reply_text", "text",
                                                              "content", "delta"};

int StateRank(std::string_view state) {
  if (state == "queued") return 0;
  if (state == "working") return 1;
  if (state == "routed") return 2;
  return -1;
}

std::optional<std::int64_t> IntField(const Json& data, std::string_view key) {
  auto it = data.find(key);
  if (it == data.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

const std::string* StringField(const Json& data, std::string_view key) {
  auto it = data.find(key);
  if (it == data.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

// "nothing" or the JSON type and value of a field, for messages.
std::string Describe(const Json& data, std::string_view key) {
  auto it = data.find(key);
  if (it == data.end()) return "nothing";
  return Format("{} {}", JsonTypeName(*it), thinkingml::Excerpt(DumpJson(*it), 80));
}

class Checker {
 public:
  Checker(std::span<const StreamEvent> events, const EventCheckOptions& options)
      : events_(events), options_(options) {}

  EventCheck Run();

 private:
  struct Delta {
    std::optional<std::int64_t> seq;
    std::size_t arrival;
    std::string text;
  };

  void Add(std::string rule, std::size_t i, std::string message, Severity s = Severity::kMust) {
    out_.findings.push_back({std::move(rule), s, std::move(message), i});
  }
  std::string Name(std::size_t i) const {
    return Format("event {} ({})", i + 1, thinkingml::Excerpt(events_[i].event, 80));
  }
  void CheckIds(std::size_t i, const Json& data);
  void OnStatus(std::size_t i, const Json& data);
  void OnDelta(std::size_t i, const Json& data);
  void OnHeartbeat(std::size_t i, const Json& data);
  void OnCompleted(std::size_t i, const Json& data);
  void OnError(std::size_t i, const Json& data);
  std::string JoinReply() const;

  std::span<const StreamEvent> events_;
  const EventCheckOptions& options_;
  EventCheck out_;
  std::optional<std::size_t> terminal_;  // index of the first terminal event
  bool request_id_compared_ = false;
  int last_state_rank_ = -1;
  std::int64_t next_seq_ = 1;
  std::vector<Delta> deltas_;
};

EventCheck Checker::Run() {
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const StreamEvent& e = events_[i];
    const bool terminal = e.event == "completed" || e.event == "error";
    if (terminal_) {
      if (terminal) {
        Add("GYMBRO-6.8", i,
            Format("{} is a second terminal event after event {}; exactly one is allowed", Name(i),
                   *terminal_ + 1));
      } else {
        Add("GYMBRO-6.9", i,
            Format("{} arrives after the terminal event {}; nothing may follow it", Name(i),
                   *terminal_ + 1));
      }
      continue;
    }
    if (std::find(kEventNames.begin(), kEventNames.end(), e.event) == kEventNames.end()) {
      Add("GYMBRO-6.1", i,
          e.event == "message"
              ? Format("event {} is an unnamed (data-only) frame; events are named status, "
                       "content_delta, completed, error or heartbeat",
                       i + 1)
              : Format("{} is not one of status, content_delta, completed, error, heartbeat",
                       Name(i)),
          Severity::kShould);
      continue;
    }
    const Json data = ReadJsonOrDiscarded(e.data);
    if (data.is_discarded() || !data.is_object()) {
      Add("GYMBRO-6.2", i,
          Format("the data of {} is not a JSON object: \"{}\"", Name(i),
                 thinkingml::Excerpt(e.data, 80)));
      if (terminal) {
        terminal_ = i;
        out_.termination = e.event == "completed" ? Termination::kCompleted : Termination::kError;
      }
      continue;
    }
    CheckIds(i, data);
    if (e.event == "status") {
      OnStatus(i, data);
    } else if (e.event == "content_delta") {
      OnDelta(i, data);
    } else if (e.event == "heartbeat") {
      OnHeartbeat(i, data);
    } else if (e.event == "completed") {
      OnCompleted(i, data);
    } else {
      OnError(i, data);
    }
  }
  if (!terminal_) {
    out_.findings.push_back(
        {"GYMBRO-6.8", Severity::kMust,
         Format("the stream ended after {} events without a completed or error event",
                events_.size()),
         std::nullopt});
  }
  out_.reply = JoinReply();
  out_.valid = std::none_of(out_.findings.begin(), out_.findings.end(),
                            [](const EventFinding& f) { return f.severity == Severity::kMust; });
  return std::move(out_);
}

void Checker::CheckIds(std::size_t i, const Json& data) {
  // Present, non-empty, and the same as in the first event that had it.
  auto check = [&](std::string_view key, std::string& first) -> const std::string* {
    const std::string* value = StringField(data, key);
    if (!value || value->empty()) {
      Add("GYMBRO-6.2", i,
          Format("{} has no {} string (found {})", Name(i), key, Describe(data, key)));
      return nullptr;
    }
    if (first.empty()) {
      first = *value;
    } else if (*value != first) {
      Add("GYMBRO-6.3", i,
          Format("{} has {} \"{}\", earlier events \"{}\"", Name(i), key, *value, first));
    }
    return value;
  };
  check("message_id", out_.message_id);
  const std::string* rid = check("request_id", out_.request_id);
  if (rid && options_.request_id && !request_id_compared_) {
    request_id_compared_ = true;
    if (*rid != *options_.request_id) {
      Add("GYMBRO-6.4", i,
          Format("{} has request_id \"{}\", but the request sent X-Request-Id \"{}\"", Name(i),
                 *rid, *options_.request_id));
    }
  }
}

void Checker::OnStatus(std::size_t i, const Json& data) {
  const std::string* state = StringField(data, "state");
  if (!state) {
    Add("GYMBRO-6.7", i,
        Format("{} has no state string (found {})", Name(i), Describe(data, "state")));
    return;
  }
  out_.states.push_back(*state);
  const int rank = StateRank(*state);
  if (rank < 0) {
    Add("GYMBRO-6.7", i,
        Format("{} has state \"{}\"; states are queued, working, routed", Name(i), *state));
  } else if (rank <= last_state_rank_) {
    Add("GYMBRO-6.7", i,
        Format("{} has state \"{}\" after \"{}\"; states go queued → working → routed, each once",
               Name(i), *state, out_.states[out_.states.size() - 2]));
  } else {
    last_state_rank_ = rank;
  }
}

void Checker::OnDelta(std::size_t i, const Json& data) {
  ++out_.deltas;
  Delta d{IntField(data, "seq"), i, {}};
  if (!d.seq) {
    Add("GYMBRO-6.5", i,
        Format("{} has no integer seq (found {})", Name(i), Describe(data, "seq")));
  } else {
    if (*d.seq != next_seq_) {
      Add("GYMBRO-6.5", i,
          Format("{} has seq {} where {} was expected; seq starts at 1 and rises by 1", Name(i),
                 *d.seq, next_seq_));
    }
    next_seq_ = *d.seq + 1;
  }
  if (const std::string* text = StringField(data, "delta")) {
    d.text = *text;
    if (const std::size_t n = CountCodePoints(*text); n > kMaxDeltaCodePoints) {
      Add("GYMBRO-6.15", i,
          Format("{} carries a delta of {} characters; deltas over {} should be split", Name(i), n,
                 kMaxDeltaCodePoints),
          Severity::kShould);
    }
  } else {
    Add("GYMBRO-6.6", i,
        Format("{} has no delta string (found {})", Name(i), Describe(data, "delta")));
  }
  deltas_.push_back(std::move(d));
}

void Checker::OnHeartbeat(std::size_t i, const Json& data) {
  ++out_.heartbeats;
  const auto ts = IntField(data, "ts");
  if (!ts) {
    Add("GYMBRO-6.12", i, Format("{} has no integer ts (found {})", Name(i), Describe(data, "ts")));
  } else if (*ts < kMinMillisecondTimestamp) {
    Add("GYMBRO-6.12", i,
        Format("{} has ts {}, which is not a time in milliseconds", Name(i), *ts));
  }
}

void Checker::OnCompleted(std::size_t i, const Json& data) {
  terminal_ = i;
  out_.termination = Termination::kCompleted;
  out_.reply = JoinReply();
  const auto len = IntField(data, "reply_len");
  if (!len || *len < 0) {
    Add("GYMBRO-6.10", i,
        Format("{} has no reply_len integer >= 0 (found {})", Name(i),
               Describe(data, "reply_len")));
  } else {
    out_.reply_len = *len;
    const std::size_t actual = CountCodePoints(out_.reply);
    if (static_cast<std::size_t>(*len) != actual) {
      Add("GYMBRO-7.3", i,
          Format("{} has reply_len {}, the joined deltas hold {} characters", Name(i), *len,
                 actual),
          Severity::kShould);
    }
  }
  for (std::string_view key : kReplyTextFields) {
    if (data.contains(key)) {
      Add("GYMBRO-6.10", i,
          Format("{} has a \"{}\" field; completed carries no reply text", Name(i), key));
    }
  }
  if (!out_.reply.empty()) {
    for (const auto& [key, value] : data.items()) {
      if (value.is_string() && value.get_ref<const std::string&>() == out_.reply &&
          std::find(kReplyTextFields.begin(), kReplyTextFields.end(), key) ==
              kReplyTextFields.end()) {
        Add("GYMBRO-6.10", i,
            Format("{} repeats the reply text in \"{}\"; completed carries no reply text", Name(i),
                   key));
      }
    }
  }
}

void Checker::OnError(std::size_t i, const Json& data) {
  terminal_ = i;
  out_.termination = Termination::kError;
  const std::string* code = StringField(data, "code");
  const std::string* message = StringField(data, "message");
  const std::string* legacy = StringField(data, "error");
  if (!code || code->empty()) {
    Add("GYMBRO-6.11", i,
        Format("{} has no code string (found {})", Name(i), Describe(data, "code")));
  } else {
    out_.error_code = *code;
  }
  if (!message) {
    Add("GYMBRO-6.11", i,
        Format("{} has no message string (found {})", Name(i), Describe(data, "message")));
  } else {
    out_.error_message = *message;
  }
  if (!legacy) {
    Add("GYMBRO-6.11", i,
        Format("{} has no legacy error string (found {}); old clients read it", Name(i),
               Describe(data, "error")));
  } else if (message && *legacy != *message) {
    Add("GYMBRO-6.11", i,
        Format("{} has error \"{}\" different from message \"{}\"; the legacy field repeats the "
               "message",
               Name(i), *legacy, *message));
  }
}

std::string Checker::JoinReply() const {
  std::vector<const Delta*> order;
  order.reserve(deltas_.size());
  for (const auto& d : deltas_) order.push_back(&d);
  const bool by_seq =
      std::all_of(deltas_.begin(), deltas_.end(), [](const Delta& d) { return d.seq.has_value(); });
  if (by_seq) {
    std::stable_sort(order.begin(), order.end(),
                     [](const Delta* a, const Delta* b) { return *a->seq < *b->seq; });
  }
  std::string reply;
  for (const Delta* d : order) reply += d->text;
  return reply;
}

}  // namespace

std::string_view SeverityName(Severity s) { return s == Severity::kMust ? "must" : "should"; }

std::string_view TerminationName(Termination t) {
  switch (t) {
    case Termination::kCompleted:
      return "completed";
    case Termination::kError:
      return "error";
    case Termination::kNone:
      break;
  }
  return "none";
}

EventCheck CheckEvents(std::span<const StreamEvent> events, const EventCheckOptions& options) {
  return Checker(events, options).Run();
}

}  // namespace llmconform::gymbro
