#include "mockllm/journal.h"

#include <algorithm>
#include <limits>

#include "base/json.h"
#include "base/json_read.h"
#include "base/utf8.h"

namespace llmconform::mockllm {

namespace {

// Caps `text` at kMaxKeptBytes; true when it was cut.
bool Cap(std::string& text) {
  if (text.size() <= kMaxKeptBytes) return false;
  text = CapText(text, kMaxKeptBytes);
  return true;
}

// Caps every string in `j` (the depth is bounded by the reader that made
// it); true when one was cut.
bool CapStrings(Json& j) {
  if (j.is_string()) return Cap(j.get_ref<std::string&>());
  if (!j.is_structured()) return false;  // (a scalar iterates over itself)
  bool cut = false;
  for (Json& e : j) cut |= CapStrings(e);  // the values of an array or object
  return cut;
}

// Caps what `e` keeps and packs a structured body into text; with
// `whole_bodies`, a JSON body is kept whole.
void Pack(JournalEntry& e, bool whole_bodies) {
  if (e.body.is_string()) e.body_cut = Cap(e.body.get_ref<std::string&>());
  if (e.body.is_structured()) {
    // Text within kMaxKeptBytes holds no longer string: it is kept as given.
    if (e.body_json.empty() || e.body_json.size() > kMaxKeptBytes) {
      if (!whole_bodies) e.body_cut = CapStrings(e.body);
      e.body_json = DumpJson(e.body);
      if (!whole_bodies && e.body_json.size() > kMaxKeptBodyBytes) {
        e.body_json = CapText(e.body_json, kMaxKeptBytes);
        e.body_cut = true;
      }
    }
    e.body = nullptr;
  } else {
    e.body_json.clear();
  }
  if (!e.nearest.is_null()) {
    CapStrings(e.nearest);
    e.nearest_json = DumpJson(e.nearest);
    if (e.nearest_json.size() > kMaxKeptBodyBytes)
      e.nearest_json = CapText(e.nearest_json, kMaxKeptBytes);
    e.nearest = nullptr;
  }
  for (auto& [name, value] : e.headers) Cap(value);
  Cap(e.path);
  for (auto& f : e.findings) Cap(f.message);
}

// About what a packed entry holds, in bytes: its texts and a fixed part.
std::size_t KeptBytes(const JournalEntry& e) {
  std::size_t n = sizeof(JournalEntry) + e.method.size() + e.path.size() + e.body_json.size() +
                  e.nearest_json.size() + e.outcome.size();
  if (e.body.is_string()) n += e.body.get_ref<const std::string&>().size();
  for (const auto& [name, value] : e.headers) n += name.size() + value.size() + 64;
  for (const auto& f : e.findings) n += FindingKindName(f.kind).size() + f.message.size() + 64;
  for (const auto* o : {&e.session, &e.trace, &e.proxied, &e.dialect})
    if (*o) n += (*o)->size();
  return n;
}

}  // namespace

std::uint64_t Journal::Append(JournalEntry entry) {
  Pack(entry, whole_bodies_);
  const std::size_t bytes = KeptBytes(entry);
  // What the limits drop, freed after the lock is released (one entry, or
  // none, unless a large entry pushes out several small ones).
  std::vector<JournalEntry> evicted;
  std::lock_guard lock(mu_);
  const std::uint64_t seq = next_seq_++;
  if (entries_.empty()) first_seq_ = seq;
  entries_.push_back(std::move(entry));
  kept_bytes_ += bytes;
  DropOverLimits(evicted);
  return seq;
}

void Journal::DropOverLimits(std::vector<JournalEntry>& evicted) {
  while (entries_.size() > limit_ || (kept_bytes_ > max_bytes_ && entries_.size() > 1)) {
    kept_bytes_ -= KeptBytes(entries_.front());
    evicted.push_back(std::move(entries_.front()));
    entries_.pop_front();
    ++first_seq_;
    ++dropped_;
  }
}

void Journal::SetOutcome(std::uint64_t seq, std::string_view outcome,
                         std::optional<JournalFinding> finding) {
  std::vector<JournalEntry> evicted;  // freed after the lock is released
  std::lock_guard lock(mu_);
  if (entries_.empty() || seq < first_seq_ || seq - first_seq_ >= entries_.size()) return;
  JournalEntry& e = entries_[seq - first_seq_];
  // KeptBytes(e) changes by the outcome's length and the finding's part.
  kept_bytes_ = kept_bytes_ - e.outcome.size() + outcome.size();
  e.outcome = outcome;
  if (finding) {
    finding->message = CapText(finding->message, kMaxKeptBytes);
    kept_bytes_ += FindingKindName(finding->kind).size() + finding->message.size() + 64;
    e.findings.push_back(std::move(*finding));
    DropOverLimits(evicted);  // the finding may take the journal past its budget
  }
}

// Entries are copied under the lock and made JSON outside it (parsing their
// bodies back), so reading the journal holds up requests no longer than a copy.
Json Journal::Entries() const {
  Json out = Json::array();
  for (Json& e : Page(0, std::numeric_limits<std::size_t>::max())) out.push_back(std::move(e));
  return out;
}

std::vector<Json> Journal::Page(std::uint64_t after, std::size_t limit) const {
  std::vector<std::pair<std::uint64_t, JournalEntry>> held;
  std::uint64_t from = 0;  // the first seq the caller has not seen, since the last Clear
  if (after == std::numeric_limits<std::uint64_t>::max()) return {};
  {
    std::lock_guard lock(mu_);
    from = std::max(after + 1, cleared_seq_);
    for (std::uint64_t seq = std::max(from, first_seq_);
         seq - first_seq_ < entries_.size() && held.size() < limit; ++seq) {
      held.emplace_back(seq, entries_[seq - first_seq_]);
    }
  }
  std::vector<Json> out;
  out.reserve(held.size());
  for (const auto& [seq, e] : held) out.push_back(e.ToJson(seq));
  if (!held.empty() && held.front().first > from)
    out.front()["dropped_before"] = held.front().first - from;
  return out;
}

void Journal::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
  kept_bytes_ = 0;
  first_seq_ = next_seq_;
  cleared_seq_ = next_seq_;
}

std::size_t Journal::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::uint64_t Journal::total() const {
  std::lock_guard lock(mu_);
  return next_seq_ - 1;
}

std::uint64_t Journal::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

std::size_t Journal::kept_bytes() const {
  std::lock_guard lock(mu_);
  return kept_bytes_;
}

}  // namespace llmconform::mockllm
