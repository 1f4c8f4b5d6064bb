// The filters of the SBPL subset (see sbpl_evaluator.hpp for the semantics)
// and how each is built from its S-expression.
#pragma once
#include "sbpl_evaluator.hpp"
#include "sexpr_reader.hpp"

#include <map>
#include <memory>
#include <string>

namespace oms::test::sbpl {

class Filter {
public:
    virtual ~Filter() = default;
    virtual bool matches(const Query& query) const = 0;
};

// Builds a filter from e.g. (subpath (param "HOME")); throws ParseError.
std::shared_ptr<const Filter> make_filter(const Node& node, const std::map<std::string, std::string>& parameters);

}  // namespace oms::test::sbpl
