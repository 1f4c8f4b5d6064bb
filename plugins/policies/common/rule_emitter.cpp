#include "rule_emitter.hpp"

#include "paths.hpp"

namespace oms::policies {

RuleEmitter::RuleEmitter(const oms::sdk::RuleSink& sink, std::string_view plugin_id)
    : sink_(sink), plugin_id_(plugin_id) {}

bool RuleEmitter::add(oms_rule_kind kind, std::string_view value, std::string_view reason, int64_t number) {
    if (!seen_.emplace(kind, std::string(value), number).second) return false;
    sink_.add(kind, value, plugin_id_ + ": " + std::string(reason), number);
    return true;
}

bool RuleEmitter::add_existing(oms_rule_kind kind, std::string_view path, std::string_view reason) {
    const auto resolved = real_path(path);
    return resolved && add(kind, *resolved, reason);
}

}  // namespace oms::policies
