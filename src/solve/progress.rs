//! Progress reports of long stages, for whoever watches: the command line draws bars
//! from them, the library itself stays free of any terminal code.

/// Receives progress reports. Called from many threads at once; both methods do
/// nothing unless overridden.
pub trait Progress: Sync {
    /// A new stage named `label` starts, of `total` units of work (positions, as a rule).
    fn begin(&self, _label: &str, _total: u64) {}
    /// `n` more units of the current stage are done.
    fn advance(&self, _n: u64) {}
}

/// Progress that nobody watches: pass `&NoProgress` where a [`Progress`] or a
/// [`Reporter`](crate::solve::generate::Reporter) is asked for.
pub struct NoProgress;
impl Progress for NoProgress {}
