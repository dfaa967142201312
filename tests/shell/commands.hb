# Every command of `redbase shell`, run by tests/shell/run.sh against a real redbase server;
# the printed output must match commands.golden (timestamps, timings, region ids masked).
# general
version
whoami
help 'incr'
help 'namespace'
# the seed documents' commands, verbatim
create 'access-logs', 't', {SPLITS => ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f']}
create 'counters', 'c'
incr 'counters', 'rk1', 'c:1'
incr 'counters', 'rk1', 'c:2', 100
get 'counters', 'rk1'
create 't1', 'f1'
alter 't1', NAME => 'f1', KEEP_DELETED_CELLS => true
# the same alter as the seed prints it, with typographic quotes: a syntax error with its position
alter ‘t1′, NAME => ‘f1′, KEEP_DELETED_CELLS => true
# ddl
status
create 'users', {NAME => 'info', VERSIONS => 3, MIN_VERSIONS => 1,
  KEEP_DELETED_CELLS => 'TTL', BLOCKSIZE => 131072, IN_MEMORY => true,
  COMPRESSION => 'NONE', BLOOMFILTER => 'ROWCOL'}, {NAME => 'extra', TTL => 86400}
describe 'users'
alter 'users', 'more'
alter 'users', NAME => 'extra', METHOD => 'delete'
alter 'users', 'delete' => 'more'
alter 'users', MAX_FILESIZE => '134217728'
desc 'users'
create 'hex', 'f', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}
get_splits 'hex'
create 'uniform', 'f', NUMREGIONS => 3, SPLITALGO => 'UniformSplit'
get_splits 'uniform'
list
list 'u.*'
exists 'users'
exists 'nope'
is_enabled 'users'
disable 'users'
is_disabled 'users'
is_enabled 'users'
enable 'users'
# namespaces
create_namespace 'ns1', {'owner' => 'ops'}
describe_namespace 'ns1'
alter_namespace 'ns1', {METHOD => 'set', 'tier' => 'gold'}
alter_namespace 'ns1', {METHOD => 'unset', NAME => 'owner'}
describe_namespace 'ns1'
create 'ns1:events', 'e'
list_namespace
list_namespace 'ns.*'
list_namespace_tables 'ns1'
# dml
put 'users', 'u1', 'info:name', 'Ann', 1000
put 'users', 'u1', 'info:name', 'Anna', 2000
put 'users', 'u1', 'info:email', "ann@example.com"
put 'users', "u2\x00\xff", 'info:name', "B\x01\\"
put 'users', 'u3', 'info:name', 'Cy'
get 'users', 'u1'
get 'users', 'u1', 'info:name'
get 'users', 'u1', {COLUMN => 'info:name', VERSIONS => 3}
get 'users', 'u1', {COLUMNS => ['info:name'], TIMESTAMP => 1000}
get 'users', 'u1', {COLUMN => 'info:name', TIMERANGE => [0, 1500], VERSIONS => 3}
get 'users', 'u1', {FILTER => "QualifierFilter(=, 'binary:email')"}
scan 'users'
scan 'users', {STARTROW => 'u2', STOPROW => 'u3'}
scan 'users', {ROWPREFIXFILTER => 'u1', COLUMNS => ['info:name'], VERSIONS => 2}
scan 'users', {LIMIT => 2}
scan 'users', {REVERSED => true, LIMIT => 2}
scan 'users', {TIMERANGE => [0, 1500]}
scan 'users', {FILTER => "PrefixFilter('u3')"}
scan 'users', {RAW => true, VERSIONS => 10}
count 'users'
count 'users', INTERVAL => 2, CACHE => 1
delete 'users', 'u1', 'info:name', 1000
get 'users', 'u1', {COLUMN => 'info:name', VERSIONS => 3}
deleteall 'users', 'u1', 'info:email'
deleteall 'users', 'u3'
scan 'users'
incr 'counters', 'rk2', 'c:hits', 5
get_counter 'counters', 'rk2', 'c:hits'
get_counter 'counters', 'rk2', 'c:none'
append 'counters', 'rk3', 'c:log', 'a'
append 'counters', 'rk3', 'c:log', 'b'
incr 'counters', 'rk3', 'c:log'
# regions
list_regions 'hex'
locate_region 'access-logs', '5abc'
locate_region 'hex', 'zzz'
# truncation keeps or drops the boundaries
truncate_preserve 'hex'
get_splits 'hex'
truncate 'hex'
get_splits 'hex'
# errors: each names what is wrong
get 'users'
scan 'users', {STARTROW => 'a', COLUMNZ => 'x'}
scan 'users', {LIMITS => 1}
create 'bad'
create 'bad', 'f', {NUMREGIONS => 1, SPLITALGO => 'HexStringSplit'}
drop 'users'
frobnicate 'users'
scna 'users'
craete 'users', 'f'
create 'access-logs', 't'
# lines pasted from an HBase shell session keep their prompt: it is left out (said once)
hbase(main):006:0> incr 'counters', 'rk1', 'c:1'
hbase> get_counter 'counters', 'rk1', 'c:1'
hbase:007:0> exists 'counters'
put 'users', row, 'info:name', 'v'
get 'nosuchtable', 'r'
# clean up
disable 'users'
drop 'users'
disable 'ns1:events'
drop 'ns1:events'
drop_namespace 'ns1'
exists 'users'
