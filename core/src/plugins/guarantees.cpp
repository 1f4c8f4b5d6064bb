#include "oms/core/guarantees.hpp"

#include <algorithm>

namespace oms::core {

namespace {

constexpr const char* kDetailPrefix = "guarantees: ";

std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        std::string item = text.substr(start, end - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty()) out.push_back(item);
        start = end + 1;
    }
    return out;
}

std::string comma_list_text(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& guarantee_vocabulary() {
    static const std::vector<std::pair<std::string, std::string>> names = {
        {"file-rules", "HOME's secrets and keypairs unreadable, writes only in the write roots, .git and pinned "
                       "files read-only"},
        {"private-network", "a network of the run's own: only the allowed ports on 127.0.0.1, no other address"},
        {"private-tmp", "the host's /tmp and /var/tmp are not shared with commands (private temp folders)"},
        {"process-isolation", "host processes can be neither seen nor signalled, and whatever a command leaves "
                              "ends with the run, even when oms itself is killed"},
    };
    return names;
}

std::string guarantee_names_text() {
    std::string out;
    for (const auto& [name, meaning] : guarantee_vocabulary()) out += (out.empty() ? "" : ", ") + name;
    return out;
}

bool is_guarantee_name(const std::string& name) {
    const auto& names = guarantee_vocabulary();
    return std::any_of(names.begin(), names.end(), [&](const auto& entry) { return entry.first == name; });
}

std::vector<std::string> guarantees_of(const BackendReport& report) {
    for (const auto& line : report.details)
        if (line.rfind(kDetailPrefix, 0) == 0) return comma_list(line.substr(std::string(kDetailPrefix).size()));
    return {};
}

void apply_required_guarantees(const Config& config, BackendReport& report) {
    const ConfigValue* required = config.get("sandbox", "require");
    if (!required || !report.usable) return;
    const auto given = guarantees_of(report);
    std::string lacking;
    for (const auto& name : required->strings)
        if (std::find(given.begin(), given.end(), name) == given.end()) lacking += (lacking.empty() ? "" : ", ") + name;
    if (lacking.empty()) return;
    report.usable = false;
    report.reason = "[sandbox] require (" + required->where + ") asks for " + lacking + ", which it does not give " +
                    "here (it gives: " + (given.empty() ? std::string("none named") : comma_list_text(given)) + ")";
}

}  // namespace oms::core
