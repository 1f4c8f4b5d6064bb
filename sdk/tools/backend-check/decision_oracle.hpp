// An oracle for a backend whose commands cannot run on this host: a program
// the backend's author supplies that reads what `render` produced and says
// what that plan decides. The kit asks it about the precedence table's rows.
//
//   PROGRAM RENDERED_FILE   < one query a line: "read PATH" or "write PATH"
//                           > one answer a line: "allow" or "deny"
//
// Any other answer, a missing answer or a non-zero exit is an error: the
// oracle could not tell, and the rows fail.
#pragma once
#include <string>
#include <vector>

namespace oms::backend_check {

// Runs the oracle; true with one answer per query ("allow"/"deny"), else
// false with `error` naming what went wrong.
bool ask_oracle(const std::string& program, const std::string& rendered_file, const std::string& folder,
                const std::vector<std::string>& queries, std::vector<std::string>& answers, std::string& error);

}  // namespace oms::backend_check
