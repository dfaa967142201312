//! What each Hbase (Thrift1) method needs from the caller (docs/acl.md has the same table).
//! The handlers ask [`crate::gateway::Access`] for it; this list exists so a new method
//! cannot be added without deciding, and so the tests can check every method is enforced.

use crate::gateway::Rule::{self, *};

/// Every method of the service, by its wire name.
pub const METHODS: &[(&str, Rule)] = &[
    ("enableTable", AlterTable),
    ("disableTable", AlterTable),
    ("isTableEnabled", Nothing),
    ("compact", AlterTable),
    ("majorCompact", AlterTable),
    ("getTableNames", Filtered),
    ("getTableNamesWithIsTableEnabled", Filtered),
    ("getColumnDescriptors", Describe),
    ("getTableRegions", Nothing),
    ("createTable", CreateTable),
    ("deleteTable", AlterTable),
    ("get", Read),
    ("getVer", Read),
    ("getVerTs", Read),
    ("getRow", Read),
    ("getRowWithColumns", Read),
    ("getRowTs", Read),
    ("getRowWithColumnsTs", Read),
    ("getRows", Read),
    ("getRowsWithColumns", Read),
    ("getRowsTs", Read),
    ("getRowsWithColumnsTs", Read),
    ("mutateRow", Write),
    ("mutateRowTs", Write),
    ("mutateRows", Write),
    ("mutateRowsTs", Write),
    ("atomicIncrement", Write),
    ("deleteAll", Write),
    ("deleteAllTs", Write),
    ("deleteAllRow", Write),
    ("increment", Write),
    ("incrementRows", Write),
    ("deleteAllRowTs", Write),
    ("scannerOpenWithScan", Read),
    ("scannerOpen", Read),
    ("scannerOpenWithStop", Read),
    ("scannerOpenWithPrefix", Read),
    ("scannerOpenTs", Read),
    ("scannerOpenWithStopTs", Read),
    ("scannerGet", ScannerOwner),
    ("scannerGetList", ScannerOwner),
    ("scannerClose", ScannerOwner),
    ("getRegionInfo", Nothing),
    ("append", Write),
    ("checkAndPut", CheckAndWrite),
    ("getThriftServerType", Nothing),
    ("getClusterId", Nothing),
    ("grant", Grant),
    ("revoke", Grant),
];

#[cfg(test)]
mod tests {
    use super::METHODS;

    #[test]
    fn every_generated_method_is_classified_once() {
        crate::gateway::access::assert_classified(
            include_str!("../generated/hbase1.rs"),
            METHODS,
            49,
        );
    }
}
