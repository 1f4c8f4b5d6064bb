#include "sexpr_reader.hpp"

#include "sbpl_evaluator.hpp"

#include <cctype>

namespace oms::test::sbpl {

namespace {

class Reader {
public:
    explicit Reader(const std::string& text) : text_(text) {}

    std::vector<Node> all() {
        std::vector<Node> forms;
        for (skip_blank(); pos_ < text_.size(); skip_blank()) forms.push_back(node());
        return forms;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ParseError(what + " at byte " + std::to_string(pos_));
    }

    void skip_blank() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == ';') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
            } else {
                return;
            }
        }
    }

    Node node() {
        const char c = text_[pos_];
        if (c == '(') return list();
        if (c == ')') fail("unexpected ')'");
        if (c == '"') return string(false);
        if (c == '#' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
            ++pos_;
            return string(true);
        }
        return symbol();
    }

    Node list() {
        Node out;
        out.type = Node::Type::list;
        out.offset = pos_++;
        for (skip_blank(); pos_ < text_.size() && text_[pos_] != ')'; skip_blank()) out.items.push_back(node());
        if (pos_ >= text_.size()) fail("unclosed '(' opened at byte " + std::to_string(out.offset));
        ++pos_;
        return out;
    }

    // "..." understands \\ \" \n \t; #"..." is raw up to the next quote.
    Node string(bool raw) {
        Node out;
        out.type = Node::Type::string;
        out.offset = pos_++;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (c == '\\' && !raw) {
                if (pos_ >= text_.size()) break;
                const char e = text_[pos_++];
                if (e == 'n') c = '\n';
                else if (e == 't') c = '\t';
                else if (e == '\\' || e == '"') c = e;
                else fail(std::string("unknown string escape \\") + e);
            }
            out.text += c;
        }
        if (pos_ >= text_.size()) fail("unterminated string opened at byte " + std::to_string(out.offset));
        ++pos_;
        return out;
    }

    Node symbol() {
        Node out;
        out.type = Node::Type::symbol;
        out.offset = pos_;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '"' || c == ';') break;
            out.text += c;
            ++pos_;
        }
        if (out.text.empty()) fail("unexpected character");
        return out;
    }

    const std::string& text_;
    size_t pos_ = 0;
};

}  // namespace

std::vector<Node> read_forms(const std::string& text) { return Reader(text).all(); }

}  // namespace oms::test::sbpl
