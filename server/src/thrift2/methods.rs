//! What each THBaseService method needs from the caller (docs/acl.md has the same table).
//! The handlers ask [`crate::gateway::Access`] for it; this list exists so a new method
//! cannot be added without deciding, and so the tests can check every method is enforced.

use crate::gateway::Rule::{self, *};

/// Every method of the service, by its wire name.
pub const METHODS: &[(&str, Rule)] = &[
    ("exists", Read),
    ("existsAll", Read),
    ("get", Read),
    ("getMultiple", Read),
    ("put", Write),
    ("checkAndPut", CheckAndWrite),
    ("putMultiple", Write),
    ("deleteSingle", Write),
    ("deleteMultiple", Write),
    ("checkAndDelete", CheckAndWrite),
    ("increment", Write),
    ("append", Write),
    ("openScanner", Read),
    ("getScannerRows", ScannerOwner),
    ("closeScanner", ScannerOwner),
    ("mutateRow", Write),
    ("getScannerResults", Read),
    ("getRegionLocation", Nothing),
    ("getAllRegionLocations", Nothing),
    ("checkAndMutate", CheckAndWrite),
    ("getTableDescriptor", Describe),
    ("getTableDescriptors", Describe),
    ("tableExists", Nothing),
    ("getTableDescriptorsByPattern", Filtered),
    ("getTableDescriptorsByNamespace", Filtered),
    ("getTableNamesByPattern", Filtered),
    ("getTableNamesByNamespace", Filtered),
    ("createTable", CreateTable),
    ("deleteTable", AlterTable),
    ("truncateTable", AlterTable),
    ("enableTable", AlterTable),
    ("disableTable", AlterTable),
    ("isTableEnabled", Nothing),
    ("isTableDisabled", Nothing),
    ("isTableAvailable", Nothing),
    ("isTableAvailableWithSplit", Nothing),
    ("addColumnFamily", AlterTable),
    ("deleteColumnFamily", AlterTable),
    ("modifyColumnFamily", AlterTable),
    ("modifyTable", AlterTable),
    ("createNamespace", AlterNamespace),
    ("modifyNamespace", AlterNamespace),
    ("deleteNamespace", AlterNamespace),
    ("getNamespaceDescriptor", DescribeNamespace),
    ("listNamespaceDescriptors", Filtered),
    ("listNamespaces", Filtered),
    ("getThriftServerType", Nothing),
    ("getClusterId", Nothing),
    ("getSlowLogResponses", ReadSlowLog),
    ("clearSlowLogResponses", ClearSlowLog),
    ("grant", Grant),
    ("revoke", Grant),
];

#[cfg(test)]
mod tests {
    use super::METHODS;

    #[test]
    fn every_generated_method_is_classified_once() {
        crate::gateway::access::assert_classified(
            include_str!("../generated/hbase2.rs"),
            METHODS,
            52,
        );
    }
}
