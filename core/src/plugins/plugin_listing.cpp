#include "oms/core/plugin_listing.hpp"

#include <algorithm>
#include <cstdio>

namespace oms::core {

namespace {

std::string kind_word(const std::string& kind) {
    if (kind == OMS_KIND_BACKEND) return "backend";
    if (kind == OMS_KIND_POLICY) return "policy";
    return kind.empty() ? "?" : kind;
}

void set_status(PluginRow& row, const PluginRecord& record, const std::string& active,
                const std::map<std::string, BackendReport>& reports) {
    if (record.status == PluginStatus::Rejected) {
        row.status = "rejected";
        row.reason = record.reason;
        return;
    }
    if (!record.is_backend()) {
        row.status = "loaded";
        return;
    }
    auto report = reports.find(record.id);
    bool usable = report != reports.end() && report->second.usable;
    row.status = record.id == active ? (usable ? "active" : "unavailable") : (usable ? "available" : "unavailable");
    if (!usable && report != reports.end()) row.reason = report->second.reason;
}

// A plugin's text on one line of the table: control bytes become '?'.
std::string one_line(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return text;
}

}  // namespace

std::map<std::string, BackendReport> probe_all_backends(const Registry& registry) {
    std::map<std::string, BackendReport> reports;
    for (const PluginRecord* record : registry.loaded(OMS_KIND_BACKEND))
        reports[record->id] = probe_backend(*record, *registry.instance(record->id), OMS_REPORT_FOR_PERSON);
    return reports;
}

std::vector<PluginRow> plugin_rows(const Registry& registry, const std::string& active,
                                   const std::map<std::string, BackendReport>& reports) {
    std::vector<PluginRow> rows;
    for (auto& record : registry.records()) {
        PluginRow row;
        row.id = record.id.empty() ? "(unknown)" : record.id;
        row.kind = kind_word(record.kind);
        row.version = record.version.empty() ? "-" : record.version;
        row.abi = record.abi_major || record.abi_minor
                      ? std::to_string(record.abi_major) + "." + std::to_string(record.abi_minor)
                      : "-";
        row.file = record.file;
        row.summary = one_line(record.summary);
        set_status(row, record, active, reports);
        rows.push_back(row);
    }
    return rows;
}

std::string format_plugin_rows(const std::vector<PluginRow>& rows) {
    size_t id_width = 2, kind_width = 4;
    for (auto& row : rows) {
        id_width = std::max(id_width, row.id.size());
        kind_width = std::max(kind_width, row.kind.size());
    }
    std::string out;
    char line[4096];
    for (auto& row : rows) {
        std::string status = row.status + (row.reason.empty() ? "" : ": " + row.reason);
        std::snprintf(line, sizeof line, "  %-*s  %-*s  %-8s  ABI %-4s  %s\n      %s\n", static_cast<int>(id_width),
                      row.id.c_str(), static_cast<int>(kind_width), row.kind.c_str(), row.version.c_str(),
                      row.abi.c_str(), status.c_str(), row.file.c_str());
        out += line;
        if (!row.summary.empty()) out += "      " + row.summary + "\n";
    }
    return out;
}

void write_plugin_rows(JsonWriter& json, const std::vector<PluginRow>& rows) {
    json.begin_array();
    for (auto& row : rows) {
        json.begin_object();
        json.key("id").value(row.id).key("kind").value(row.kind).key("version").value(row.version);
        json.key("abi").value(row.abi).key("file").value(row.file).key("status").value(row.status);
        json.key("reason").value(row.reason).key("summary").value(row.summary);
        json.end_object();
    }
    json.end_array();
}

}  // namespace oms::core
