#include "mockllm/journal.h"

#include <algorithm>

#include "base/json_read.h"

namespace llmconform::mockllm {

using Json = nlohmann::json;

std::string CapText(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::size_t cut = max;
  // Back up over continuation bytes so no code point is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  out += "… [" + std::to_string(text.size()) + " bytes in all]";
  return out;
}

namespace {

void Cap(std::string& text) {
  if (text.size() > kMaxKeptBytes) text = CapText(text);
}

// Caps what `e` keeps and packs a structured body into text.
void Pack(JournalEntry& e) {
  if (e.body.is_string()) Cap(e.body.get_ref<std::string&>());
  if (e.body.is_structured()) {
    e.body_json = e.body.dump(-1, ' ', false, Json::error_handler_t::replace);
    e.body = nullptr;
  }
  for (auto& [name, value] : e.headers) Cap(value);
  Cap(e.path);
  for (auto& f : e.findings) Cap(f.message);
}

// A body Pack made text, as JSON again (the text itself, should it not parse).
Json Unpacked(const std::string& text) {
  Json j = llmconform::ReadJsonOrDiscarded(text);
  return j.is_discarded() ? Json(text) : j;
}

}  // namespace

Json JournalEntry::ToJson(std::uint64_t seq) const {
  Json headers_json = Json::object();
  for (const auto& [name, value] : headers) headers_json[name] = value;
  Json response = {{"status", status}, {"exchange", exchange ? Json(*exchange) : Json(nullptr)}};
  if (replayed) {
    response["stream"] = stream;
    response["bytes"] = bytes;
    response["cut"] = cut;
    response["outcome"] = outcome;
  }
  Json findings_json = Json::array();
  for (const auto& f : findings)
    findings_json.push_back({{"rule", f.rule}, {"message", f.message}});
  Json out = {{"seq", seq},
              {"session", session ? Json(*session) : Json(nullptr)},
              {"trace", trace ? Json(*trace) : Json(nullptr)},
              {"method", method},
              {"path", path},
              {"request",
               {{"headers", std::move(headers_json)},
                {"body", body_json.empty() ? body : Unpacked(body_json)}}},
              {"response", std::move(response)},
              {"findings", std::move(findings_json)}};
  if (fault) out["fault"] = *fault;
  if (!nearest.is_null()) out["nearest"] = nearest;
  if (proxied) out["proxied"] = *proxied;
  if (dialect) out["dialect"] = *dialect;
  return out;
}

std::uint64_t Journal::Append(JournalEntry entry) {
  Pack(entry);
  std::deque<JournalEntry> evicted;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  const std::uint64_t seq = next_seq_++;
  if (entries_.empty()) first_seq_ = seq;
  entries_.push_back(std::move(entry));
  while (entries_.size() > limit_) {
    evicted.push_back(std::move(entries_.front()));
    entries_.pop_front();
    ++first_seq_;
    ++dropped_;
  }
  return seq;
}

void Journal::SetOutcome(std::uint64_t seq, std::string_view outcome,
                         std::optional<llmconform::Finding> finding) {
  std::lock_guard lock(mu_);
  if (entries_.empty() || seq < first_seq_ || seq - first_seq_ >= entries_.size()) return;
  JournalEntry& e = entries_[seq - first_seq_];
  e.outcome = outcome;
  if (finding) {
    finding->message = CapText(finding->message);
    e.findings.push_back(std::move(*finding));
  }
}

// Entries are copied under the lock and made JSON outside it (parsing their
// bodies back), so reading the journal holds up requests no longer than a copy.
Json Journal::Entries() const {
  std::deque<JournalEntry> held;
  std::uint64_t seq = 0;
  {
    std::lock_guard lock(mu_);
    held = entries_;
    seq = first_seq_;
  }
  Json out = Json::array();
  for (const auto& e : held) out.push_back(e.ToJson(seq++));
  return out;
}

std::vector<Json> Journal::Page(std::uint64_t after, std::size_t limit) const {
  std::vector<std::pair<std::uint64_t, JournalEntry>> held;
  {
    std::lock_guard lock(mu_);
    for (std::uint64_t seq = std::max(after + 1, first_seq_);
         seq - first_seq_ < entries_.size() && held.size() < limit; ++seq) {
      held.emplace_back(seq, entries_[seq - first_seq_]);
    }
  }
  std::vector<Json> out;
  out.reserve(held.size());
  for (const auto& [seq, e] : held) out.push_back(e.ToJson(seq));
  return out;
}

void Journal::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
  first_seq_ = next_seq_;
}

std::uint64_t Journal::total() const {
  std::lock_guard lock(mu_);
  return next_seq_ - 1;
}

std::uint64_t Journal::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace llmconform::mockllm
