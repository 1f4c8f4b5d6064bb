// The precedence table of docs/rule-semantics.md, as data: for paths of the
// kit's scene, which rule wins, stated only where every backend must agree
// (allowed, or not: "denied" and "hidden" both count as not, since they are
// the backends' two ways of refusing). The kit checks a backend's effective
// decisions against it, by real runs with the allowed rows as positive
// controls in the same run, or, for a backend that cannot run on this host,
// by asking an oracle about the rendered plan (decision_oracle.hpp).
#pragma once
#include "obligations.hpp"

#include <string>
#include <vector>

namespace oms::backend_check {

enum class Access { read, write };

struct TableRow {
    std::string id;        // "P1", ...: the line names it
    std::string question;  // the precedence question it answers (rule-semantics.md's rows)
    Access access;
    std::string path;
    bool allowed;          // the decision every backend must reach
    std::string grant_rule;  // an allow a backend may declare it cannot grant ("" when it must)
    std::string marker;    // read: the file's content; write: what the command appends
};

// The rows for this scene, the same for every backend: one that does not
// declare WRITE_DENY_NAME gets the rule lowered (P9 holds all the same).
std::vector<TableRow> precedence_rows(const Scene& scene);

// By real runs (a confining backend that runs here).
std::vector<Result> check_precedence_by_runs(Bench& bench);

// One row's result from the decision seen (allowed or not), with the
// backend's MISSING lines for allows it declares it cannot grant.
Result judge(const TableRow& row, bool seen_allowed, const std::vector<std::string>& missing);

}  // namespace oms::backend_check
