# Drops what tests/shell/commands.hb creates, so that the script can run again on a shared
# HBase oracle and the scenarios of diff.py (which list tables) see none of it. Its output is
# thrown away: on a clean server every line is an error.
disable 'access-logs'
drop 'access-logs'
disable 'counters'
drop 'counters'
disable 't1'
drop 't1'
disable 'users'
drop 'users'
disable 'hex'
drop 'hex'
disable 'uniform'
drop 'uniform'
disable 'ns1:events'
drop 'ns1:events'
drop_namespace 'ns1'
