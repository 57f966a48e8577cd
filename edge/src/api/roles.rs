//! Who may call what: the role each RPC requires, declared once in [`REQUIRED_ROLES`], and what
//! each credential grants. A method missing from the table is refused to everyone.

use std::fmt;

/// What a credential is for (`docs/DESIGN.md` §6, "Roles").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Join, lease, heartbeat, submit results and return leases.
    Worker,
    /// Submit, cancel, import, build, mine puzzles, start matches and take backups; also reads.
    Admin,
    /// Read status, the book, puzzles, matches, builds and games.
    Read,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Worker => "worker",
            Role::Admin => "admin",
            Role::Read => "read",
        })
    }
}

/// What one token grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grant {
    /// One role (an admin may also read: it needs to watch what it submitted).
    Role(Role),
    /// Every role: the single token of a one-person setup.
    All,
}

impl Grant {
    /// Whether a caller holding this grant may call a method that needs `needed`.
    #[must_use]
    pub fn allows(self, needed: Role) -> bool {
        match self {
            Grant::All => true,
            Grant::Role(Role::Admin) => matches!(needed, Role::Admin | Role::Read),
            Grant::Role(held) => held == needed,
        }
    }
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grant::Role(role) => write!(f, "the {role} role"),
            Grant::All => f.write_str("all roles"),
        }
    }
}

/// The role each method of the `Coordinator` service requires (method name as in the proto).
/// Anything that writes, other than a worker's own results, needs [`Role::Admin`].
pub const REQUIRED_ROLES: &[(&str, Role)] = &[
    ("Hello", Role::Worker),
    ("Lease", Role::Worker),
    ("Heartbeat", Role::Worker),
    ("Submit", Role::Worker),
    ("ReturnLeases", Role::Worker),
    ("SubmitJobs", Role::Admin),
    ("CancelJobs", Role::Admin),
    ("CreateMatch", Role::Admin),
    ("StopMatch", Role::Admin),
    ("GeneratePuzzles", Role::Admin),
    ("StartBuild", Role::Admin),
    ("BookImport", Role::Admin),
    ("Backup", Role::Admin),
    ("StartDeepSolve", Role::Admin),
    ("CreateTune", Role::Admin),
    ("StopTune", Role::Admin),
    ("Status", Role::Read),
    ("BookShow", Role::Read),
    ("MatchStatus", Role::Read),
    ("ListMatches", Role::Read),
    ("ListPuzzles", Role::Read),
    ("GetPuzzle", Role::Read),
    ("BuildStatus", Role::Read),
    ("BookExport", Role::Read),
    ("GetGames", Role::Read),
    ("WatchJobs", Role::Read),
    ("DeepSolveStatus", Role::Read),
    ("ListDeepSolves", Role::Read),
    ("DeepLeaves", Role::Read),
    ("TuneStatus", Role::Read),
    ("ListTunes", Role::Read),
];

/// The role `method` requires; `None` (refused to everyone) when it is not in the table.
#[must_use]
pub fn required_role(method: &str) -> Option<Role> {
    REQUIRED_ROLES
        .iter()
        .find(|(name, _)| *name == method)
        .map(|&(_, role)| role)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The method names of `service Coordinator` in the proto file the wire types come from.
    fn proto_methods() -> BTreeSet<String> {
        let proto = include_str!("../../../proto/pentagrid/v2/cluster.proto");
        let service = proto
            .split("service Coordinator {")
            .nth(1)
            .and_then(|rest| rest.split("\n}").next())
            .expect("the proto declares service Coordinator");
        service
            .lines()
            .filter_map(|line| line.trim().strip_prefix("rpc "))
            .map(|rest| rest.split('(').next().unwrap().trim().to_owned())
            .collect()
    }

    #[test]
    fn every_rpc_of_the_service_has_exactly_one_role() {
        let methods = proto_methods();
        assert!(methods.len() >= 20, "{methods:?}");
        let listed: Vec<&str> = REQUIRED_ROLES.iter().map(|(name, _)| *name).collect();
        let unique: BTreeSet<String> = listed.iter().map(|name| (*name).to_owned()).collect();
        assert_eq!(unique.len(), listed.len(), "a method is listed twice");
        assert_eq!(unique, methods, "the table and the service differ");
    }

    #[test]
    fn roles_follow_the_design() {
        for (method, role) in [
            ("Hello", Role::Worker),
            ("Submit", Role::Worker),
            ("ReturnLeases", Role::Worker),
            ("SubmitJobs", Role::Admin),
            ("CancelJobs", Role::Admin),
            ("BookImport", Role::Admin),
            ("StartBuild", Role::Admin),
            ("CreateMatch", Role::Admin),
            ("StopMatch", Role::Admin),
            ("CreateTune", Role::Admin),
            ("StopTune", Role::Admin),
            ("TuneStatus", Role::Read),
            ("ListTunes", Role::Read),
            ("GeneratePuzzles", Role::Admin),
            ("Backup", Role::Admin),
            ("Status", Role::Read),
            ("BookExport", Role::Read),
            ("GetGames", Role::Read),
            ("ListMatches", Role::Read),
            ("ListPuzzles", Role::Read),
            ("GetPuzzle", Role::Read),
            ("WatchJobs", Role::Read),
        ] {
            assert_eq!(required_role(method), Some(role), "{method}");
        }
        for unknown in ["", "hello", "Unlisted", "Status/x"] {
            assert_eq!(required_role(unknown), None, "{unknown:?}");
        }
    }

    #[test]
    fn each_grant_allows_exactly_its_roles() {
        use Role::{Admin, Read, Worker};
        let cases = [
            (Grant::Role(Worker), [true, false, false]),
            (Grant::Role(Admin), [false, true, true]),
            (Grant::Role(Read), [false, false, true]),
            (Grant::All, [true, true, true]),
        ];
        for (grant, expected) in cases {
            let allowed = [Worker, Admin, Read].map(|needed| grant.allows(needed));
            assert_eq!(allowed, expected, "{grant}");
        }
    }
}
