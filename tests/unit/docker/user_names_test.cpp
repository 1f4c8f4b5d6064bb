// How the docker runner names the container's user in USER/LOGNAME: from
// the image's passwd file (read directly, the runner is static), replacing
// the core's value, or removing both when the uid has no entry.
#include "../runner/user_names.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace oms::docker;
using namespace oms::test;

TEST_CASE("docker runner: the passwd entry of a uid gives its name, a missing or malformed one nothing",
          "[docker][unit]") {
    TempDir dir{"oms-user-names"};
    const std::string passwd = dir / "passwd";
    write_file(passwd,
               "root:x:0:0:root:/root:/bin/sh\n"
               "broken-line-without-fields\n"
               "::1200:1200::/:/bin/sh\n"
               "oms:x:1000:1000:oms test user:/home/oms:/bin/sh\n"
               "other:x:10000:10000::/:/bin/sh\n");
    CHECK(user_names::name_of(0, passwd.c_str()) == "root");
    CHECK(user_names::name_of(1000, passwd.c_str()) == "oms");
    CHECK(user_names::name_of(10000, passwd.c_str()) == "other");
    CHECK(user_names::name_of(100, passwd.c_str()).empty());   // a prefix of 1000 and 10000 is not a match
    CHECK(user_names::name_of(1200, passwd.c_str()).empty());  // an entry without a name names nobody
    CHECK(user_names::name_of(1000, (dir / "missing").c_str()).empty());
}

TEST_CASE("docker runner: USER and LOGNAME are replaced or removed, other entries kept in order",
          "[docker][unit]") {
    const std::vector<std::string> core_env{"PATH=/bin", "USER=root", "HOME=/h", "LOGNAME=root", "USERX=kept"};
    std::vector<std::string> named = core_env;
    user_names::rewrite(named, "oms");
    CHECK(named == std::vector<std::string>{"PATH=/bin", "USER=oms", "HOME=/h", "LOGNAME=oms", "USERX=kept"});
    std::vector<std::string> unnamed = core_env;
    user_names::rewrite(unnamed, "");
    CHECK(unnamed == std::vector<std::string>{"PATH=/bin", "HOME=/h", "USERX=kept"});
    std::vector<std::string> not_set{"PATH=/bin"};  // the policy turned them off: they stay off
    user_names::rewrite(not_set, "oms");
    CHECK(not_set == std::vector<std::string>{"PATH=/bin"});
}
