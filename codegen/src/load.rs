//! The stages from schema files to the model renderers take: parse and validate
//! (`model::validate`), then derive the split keys schemas leave out (`splits`). Deriving comes
//! after validation because it encodes salt fields with the reference key encoding (`keys`),
//! which needs a valid key design.

use std::path::PathBuf;

use crate::error::CodegenError;
use crate::model::{self, Model};

/// Reads schema files and loads them (`load_sources`).
pub fn load(files: &[PathBuf], package: Option<&str>) -> Result<Model, CodegenError> {
    let mut sources = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|source| CodegenError::Io {
            path: file.clone(),
            source,
        })?;
        sources.push((file.clone(), text));
    }
    load_sources(&sources, package)
}

/// Schema texts (with the paths errors name) → the model. `package` overrides the files'
/// `package` (which must otherwise agree; default: the first file's stem).
pub fn load_sources(
    sources: &[(PathBuf, String)],
    package: Option<&str>,
) -> Result<Model, CodegenError> {
    let mut model = model::validate(sources, package)?;
    crate::splits::derive_missing(&mut model);
    Ok(model)
}
