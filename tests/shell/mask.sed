# What changes from run to run or from server to server in `redbase shell` output: timestamps,
# timings, ports, start codes, region ids and encoded names, the cluster id, the user.
# Used by tests/shell/run.sh and tests/oracle/shell.sh (sed -E -f tests/shell/mask.sed).
s/timestamp=[^,]*,/timestamp=<ts>,/g
s/Took [0-9]+\.[0-9]{4} seconds/Took <t> seconds/
s/127\.0\.0\.1:[0-9]+/<addr>/g
s/localhost([,:])[0-9]{5}/localhost\1<port>/g
s/<port>,[0-9]{13}/<port>,<startcode>/g
s/,[0-9]+\.[0-9a-f]{32}\./,<id>.<encoded>./g
s/ENCODED => [0-9a-f]{32}/ENCODED => <encoded>/g
s/cluster id .*/cluster id <id>/
s/^[^ ]+ \(auth:SIMPLE\)$/<user> (auth:SIMPLE)/
