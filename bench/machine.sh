# What a launch figure depends on, besides oms: sourced by the bench scripts,
# which print describe_machine's line before their figures.
#   kernel, HZ, rcu_expedited  a packet socket's bind and close wait for an
#                              RCU grace period, expedited or not
#   /tmp's file system         every run makes and removes about twenty
#                              entries in /tmp/oms-runs-UID; ext4 without a
#                              journal searches past each recently freed
#                              inode for a new one (about 1.5 ms a run here,
#                              against tmpfs), journalled ext4 and tmpfs do not
#   /tmp's discard option      mounted with `discard` and no journal, ext4
#                              trims a removed file's or folder's blocks in
#                              the call that frees them and waits for the
#                              disk (a journal defers it to its commit): a
#                              run's folders and small files each wait so

kernel_hz() {
  local config="/boot/config-$(uname -r)"
  if [ -r "$config" ]; then sed -n 's/^CONFIG_HZ=//p' "$config"
  elif [ -r /proc/config.gz ]; then zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'
  else echo unknown; fi
}

# "ext4 (journal)", "ext4 (no journal, discard)", "tmpfs", ...
temp_file_system() {
  local type source options discard=""
  read -r type source options < <(findmnt -n -o FSTYPE,SOURCE,OPTIONS --target /tmp 2>/dev/null) ||
    { echo unknown; return; }
  case ",$options," in *,discard,*) discard=", discard" ;; esac
  case "$type" in
    ext3 | ext4)
      if ls /proc/fs/jbd2 2>/dev/null | grep -q "^$(basename "$source")-"; then echo "$type (journal$discard)"
      else echo "$type (no journal$discard)"; fi ;;
    *) echo "$type${discard:+ (discard)}" ;;
  esac
}

describe_machine() {
  echo "machine: kernel $(uname -r), HZ $(kernel_hz), rcu_expedited $(cat /sys/kernel/rcu_expedited 2>/dev/null || echo unknown), $(nproc) CPUs, /tmp on $(temp_file_system)"
}
