#include "precedence_table.hpp"

#include <oms/path.hpp>

namespace oms::backend_check {
namespace {

std::string relative(const Scene& scene, const std::string& path) {
    return sdk::path::is_strictly_below(path, scene.root) ? path.substr(scene.root.size() + 1) : path;
}

std::string declared_line(const std::string& rule, const std::vector<std::string>& missing) {
    for (auto& line : missing)
        if (!rule.empty() && line.rfind(rule, 0) == 0) return line;
    return "";
}

}  // namespace

std::vector<TableRow> precedence_rows(const Scene& s) {
    std::vector<TableRow> rows = {
        {"P1", "a READ_DENY beats a deeper READ_ALLOW_TREE (R1 before R4)", Access::read, s.table.denied_in_allowed,
         false, "", "TABLE-P1-SECRET"},
        {"P2", "a READ_ALLOW_TREE beats the READ_DENY_TREE above it (R4 before R6; control)", Access::read,
         s.table.allowed_in_denied_tree, true, "", "TABLE-P2-VISIBLE"},
        {"P3", "the READ_DENY_TREE denies the rest of HOME (R6)", Access::read, s.table.in_denied_tree, false, "",
         "TABLE-P3-SECRET"},
        {"P4", "a READ_DENY_SUFFIX beats a tree allow (R2 before R4)", Access::read, s.table.suffix_in_allowed, false,
         "", "TABLE-P4-SECRET"},
        {"P5", "a READ_ALLOW_TREE naming exactly the file beats a READ_DENY_SUFFIX (R3)", Access::read,
         s.table.exempt_suffix, true, "read-allow-tree", "TABLE-P5-EXEMPT"},
        {"P6", "a READ_DENY beats a READ_ALLOW_TREE naming exactly the file (R1 before R3)", Access::read,
         s.table.denied_exempt, false, "", "TABLE-P6-SECRET"},
        {"P7", "a write root below the denied read tree takes writes (W5 under R6)", Access::write,
         s.table.write_root_in_denied_tree + "/written.txt", true, "write-allow-tree", "TABLE-P7-WRITTEN"},
        {"P8", "a WRITE_DENY beats the write root around it (W2 before W5)", Access::write, s.table.write_denied,
         false, "", "TABLE-P8-WRITTEN"},
        {"P10", "nothing outside the write roots is writable (W6)", Access::write, s.table.outside_file, false, "",
         "TABLE-P10-WRITTEN"},
        {"P11", "a write root takes writes (W5; control)", Access::write, s.worktree + "/table-written.txt", true, "",
         "TABLE-P11-WRITTEN"},
    };
    // Every backend: one that does not declare WRITE_DENY_NAME gets it lowered.
    rows.insert(rows.begin() + 8, {"P9", "a WRITE_DENY_NAME entry present at run start beats the write root (W3 before W5)",
                        Access::write, s.table.denied_by_name, false, "", "TABLE-P9-WRITTEN"});
    return rows;
}

Result judge(const TableRow& row, bool seen_allowed, const std::vector<std::string>& missing) {
    const std::string name = "precedence " + row.id;
    const std::string verb = row.access == Access::read ? "read" : "write";
    const std::string want = row.allowed ? "allowed" : "not allowed";
    if (seen_allowed == row.allowed)
        return {name, Verdict::pass, row.question + ": " + verb + " " + want};
    if (row.allowed) {
        std::string declared = declared_line(row.grant_rule, missing);
        if (!declared.empty())
            return {name, Verdict::not_granted, row.question + ": " + verb + " refused, as the probe declares (\"" + declared + "\")"};
    }
    return {name, Verdict::fail, row.question + ": the " + verb + " was " + (seen_allowed ? "allowed" : "refused") +
                                     ", the table says " + want};
}

std::vector<Result> check_precedence_by_runs(Bench& bench) {
    const Scene& s = bench.scene;
    const auto rows = precedence_rows(s);
    // Every read in one run, every write in another: the allowed rows are
    // the positive controls of the same run.
    std::string reads = "cat", writes;
    for (auto& row : rows) {
        if (row.access == Access::read) reads += " " + quoted(row.path);
        else writes += "echo " + row.marker + " >> " + quoted(row.path) + " 2>/dev/null; ";
    }
    Outcome read_run = bench.shell(reads + " 2>/dev/null; exit 0");
    Outcome write_run = bench.shell(writes + "exit 0");
    std::vector<Result> results;
    for (auto& row : rows) {
        bool allowed = row.access == Access::read ? has(read_run.out, row.marker) : has(read_text(row.path), row.marker);
        const Outcome& run = row.access == Access::read ? read_run : write_run;
        Result result = judge(row, allowed, bench.missing);
        if (!run.spawned) result = {result.obligation, Verdict::fail, "the run did not start: " + describe(run)};
        if (result.verdict == Verdict::fail) result.reason += " (" + relative(s, row.path) + ")";
        results.push_back(result);
    }
    return results;
}

}  // namespace oms::backend_check
