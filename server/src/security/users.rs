//! The auth file (`--auth-file users.toml`): who may connect and how they prove it.
//!
//! ```toml
//! [users.alice]
//! password = "$argon2id$v=19$m=19456,t=2,p=1$..."   # `redbase hash-password` prints this
//! superuser = true
//!
//! [users.etl]
//! tokens = ["sha256:5f1c...e9"]                      # `redbase hash-password --token`
//! ```
//!
//! Passwords are argon2 PHC strings, verified by the `argon2` crate (constant time). Bearer
//! tokens are long random secrets, so a SHA-256 of each is enough at rest; they are compared
//! with `subtle` so timing says nothing about how much of a token matched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Why the auth file cannot be used; the server refuses to start rather than run open.
#[derive(Debug, thiserror::Error)]
pub enum UsersError {
    #[error("cannot read the auth file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the auth file {path} is not valid TOML for redbase: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("user {user:?} in {path}: {message}")]
    User {
        path: PathBuf,
        user: String,
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    users: BTreeMap<String, UserEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserEntry {
    /// An argon2 PHC string.
    password: Option<String>,
    /// `sha256:<64 hex digits>` of each bearer token.
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    superuser: bool,
}

#[derive(Debug)]
struct User {
    password: Option<String>,
    superuser: bool,
}

/// The users of the auth file, checked when it was loaded.
#[derive(Debug)]
pub struct Users {
    users: BTreeMap<String, User>,
    /// (token digest, user) for every bearer token.
    tokens: Vec<([u8; 32], String)>,
    /// A valid hash verified against when the user is unknown, so a wrong name costs the same
    /// time as a wrong password.
    decoy: String,
}

impl Users {
    /// Reads and checks the auth file: every hash must parse, every name be non-empty.
    pub fn load(path: &Path) -> Result<Users, UsersError> {
        let text = std::fs::read_to_string(path).map_err(|source| UsersError::Read {
            path: path.to_owned(),
            source,
        })?;
        Users::parse(&text, path)
    }

    /// As [`Users::load`], from the file's text (`path` only names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Users, UsersError> {
        let file: File = toml::from_str(text).map_err(|e| UsersError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let mut users = BTreeMap::new();
        let mut tokens = Vec::new();
        for (name, entry) in file.users {
            let bad = |message: String| UsersError::User {
                path: path.to_owned(),
                user: name.clone(),
                message,
            };
            if name.is_empty() || name.chars().any(|c| c.is_control() || c == ':') {
                return Err(bad(
                    "a user name must be non-empty, without ':' or control characters".into(),
                ));
            }
            if let Some(p) = &entry.password {
                PasswordHash::new(p).map_err(|e| {
                    bad(format!("password is not an argon2 PHC string ({e}); make one with `redbase hash-password`"))
                })?;
            }
            for t in &entry.tokens {
                let digest = parse_token_digest(t).ok_or_else(|| {
                    bad("a token must be \"sha256:\" and 64 hex digits; make one with `redbase hash-password --token`".into())
                })?;
                tokens.push((digest, name.clone()));
            }
            users.insert(
                name,
                User {
                    password: entry.password,
                    superuser: entry.superuser,
                },
            );
        }
        Ok(Users {
            users,
            tokens,
            decoy: hash_password("decoy").unwrap_or_default(),
        })
    }

    /// The user names marked `superuser = true`.
    pub fn superusers(&self) -> BTreeSet<String> {
        self.users
            .iter()
            .filter(|(_, u)| u.superuser)
            .map(|(n, _)| n.clone())
            .collect()
    }

    pub fn is_superuser(&self, user: &str) -> bool {
        self.users.get(user).is_some_and(|u| u.superuser)
    }

    /// Whether the file names this user (a client certificate's name need not be listed).
    pub fn contains(&self, user: &str) -> bool {
        self.users.contains_key(user)
    }

    pub fn len(&self) -> usize {
        self.users.len()
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// Whether `password` is `user`'s. Slow on purpose (argon2): call it off the async threads.
    pub fn verify_password(&self, user: &str, password: &[u8]) -> bool {
        let stored = self.users.get(user).and_then(|u| u.password.as_deref());
        let hash = stored.unwrap_or(&self.decoy);
        let Ok(parsed) = PasswordHash::new(hash) else {
            return false;
        };
        let ok = Argon2::default().verify_password(password, &parsed).is_ok();
        ok && stored.is_some()
    }

    /// The user a bearer token belongs to. Every stored digest is compared, in constant time.
    pub fn verify_token(&self, token: &[u8]) -> Option<String> {
        let digest: [u8; 32] = Sha256::digest(token).into();
        let mut found = None;
        for (d, user) in &self.tokens {
            if bool::from(d.ct_eq(&digest)) {
                found = Some(user.clone());
            }
        }
        found
    }
}

/// A PHC string (argon2id, the crate's default parameters, a random salt) for the auth file.
pub fn hash_password(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// `sha256:<hex>` of a bearer token, as the auth file stores it.
pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn parse_token_digest(s: &str) -> Option<[u8; 32]> {
    let hex = s.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_tokens_and_superusers() {
        let text = format!(
            "[users.alice]\npassword = \"{}\"\nsuperuser = true\n[users.bob]\ntokens = [\"{}\"]\n",
            hash_password("s3cret").unwrap(),
            hash_token("tok-123")
        );
        let u = Users::parse(&text, Path::new("users.toml")).unwrap();
        assert!(u.verify_password("alice", b"s3cret"));
        assert!(!u.verify_password("alice", b"wrong"));
        assert!(!u.verify_password("bob", b"s3cret"));
        assert!(!u.verify_password("nobody", b"decoy"));
        assert_eq!(u.verify_token(b"tok-123"), Some("bob".into()));
        assert_eq!(u.verify_token(b"tok-124"), None);
        assert_eq!(u.superusers(), BTreeSet::from(["alice".to_string()]));
    }

    #[test]
    fn bad_files_name_the_problem() {
        let e = Users::parse("[users.a]\npassword = \"plain\"\n", Path::new("f")).unwrap_err();
        assert!(e.to_string().contains("hash-password"), "{e}");
        let e = Users::parse("[users.a]\ncolour = 1\n", Path::new("f")).unwrap_err();
        assert!(e.to_string().contains("unknown field"), "{e}");
        let e = Users::parse("[users.a]\ntokens = [\"abc\"]\n", Path::new("f")).unwrap_err();
        assert!(e.to_string().contains("sha256"), "{e}");
    }
}
