# The dmesg lines that fail a guest run, whatever the command returned:
# oopses, BUGs, WARNINGs, sanitizer and lockdep reports, sleeping in atomic
# context, RCU stalls, kmemleak. Sourced by guest-init and suite-run.
# Not a bare "lockdep": a debug kernel says "RCU lockdep checking is
# enabled." at boot; lockdep's reports are matched by what they say.
# shellcheck shell=bash
SPLAT='(BUG:|WARNING:|Oops|KASAN|UBSAN|kernel BUG|general protection fault|lockdep is turned off|DEBUG_LOCKS_WARN_ON|possible irq lock inversion|bad unlock balance|ODEBUG:|inconsistent lock state|possible recursive locking|possible circular locking|Invalid wait context|scheduling while atomic|sleeping function called|rcu_.*detected stall|RCU stall|watchdog: BUG|unreferenced object|list_add corruption|list_del corruption|refcount_t:)'
