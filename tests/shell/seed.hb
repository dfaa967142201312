create 'access-logs', 't', {SPLITS => ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f']}
create 'counters', 'c'
incr 'counters', 'rk1', 'c:1'
incr 'counters', 'rk1', 'c:2', 100
get 'counters', 'rk1'
create 't1', 'f1'
alter 't1', NAME => 'f1', KEEP_DELETED_CELLS => true
