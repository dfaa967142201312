//! The time bounds of a request once its headers are in: its body must keep arriving
//! ([`Deadline`]), and past the connection's lifetime its bytes must keep moving
//! ([`Counted`] gives the accept loop the bytes to watch). Without them a client that sends
//! `Content-Length: 1000000` and 10 bytes, or a chunked body without its last chunk, holds a
//! connection slot for good.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a body was given up on (the handler sees it as the body's error; the client gets 408).
#[derive(Debug, Clone, thiserror::Error)]
pub enum SlowBody {
    #[error("no bytes of the request body for {0:?} (--http-body-timeout-secs)")]
    Stalled(Duration),
    #[error("the request body arrived at {got} bytes/s, below the minimum of {min} bytes/s (--http-body-min-rate)")]
    TooSlow { got: u64, min: u64 },
}

/// A request body that fails with [`SlowBody`] when its next bytes take longer than `timeout`,
/// or when, past its first `timeout`, it has averaged fewer than `min_rate` bytes a second.
/// The clock starts when the handler first reads it (a handler that reads late is not the
/// client's fault). `tripped` tells the accept loop to answer 408 and close.
pub struct Deadline<B> {
    inner: B,
    timeout: Duration,
    min_rate: u64,
    started: Option<Instant>,
    last: Instant,
    received: u64,
    timer: Option<Pin<Box<Sleep>>>,
    tripped: Arc<AtomicBool>,
    failed: Option<SlowBody>,
}

impl<B> Deadline<B> {
    pub fn new(inner: B, timeout: Duration, min_rate: u64, tripped: Arc<AtomicBool>) -> Self {
        Deadline {
            inner,
            timeout,
            min_rate,
            started: None,
            last: Instant::now(),
            received: 0,
            timer: None,
            tripped,
            failed: None,
        }
    }

    /// When the body is given up on unless more bytes come.
    fn deadline(&self, started: Instant) -> Instant {
        let idle = self.last + self.timeout;
        if self.min_rate == 0 {
            return idle;
        }
        let paid_for = Duration::from_secs_f64(self.received as f64 / self.min_rate as f64);
        idle.min(started + paid_for.max(self.timeout))
    }

    fn fail(&mut self, now: Instant, started: Instant) -> SlowBody {
        let why = if now >= self.last + self.timeout {
            SlowBody::Stalled(self.timeout)
        } else {
            let secs = now.duration_since(started).as_secs_f64().max(0.001);
            SlowBody::TooSlow {
                got: (self.received as f64 / secs) as u64,
                min: self.min_rate,
            }
        };
        self.tripped.store(true, Ordering::Release);
        self.failed = Some(why.clone());
        why
    }
}

impl<B> Body for Deadline<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        if let Some(why) = &this.failed {
            return Poll::Ready(Some(Err(Box::new(why.clone()))));
        }
        let now = Instant::now();
        let started = *this.started.get_or_insert_with(|| {
            this.last = now;
            now
        });
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    if !data.is_empty() {
                        this.received += data.len() as u64;
                        this.last = now;
                    }
                }
                if now >= this.deadline(started) && !this.inner.is_end_stream() {
                    let why = this.fail(now, started);
                    return Poll::Ready(Some(Err(Box::new(why))));
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => loop {
                let due = this.deadline(started);
                if Instant::now() >= due {
                    let why = this.fail(Instant::now(), started);
                    return Poll::Ready(Some(Err(Box::new(why))));
                }
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(due)));
                if timer.deadline() != due {
                    timer.as_mut().reset(due);
                }
                if timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.failed.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A connection's stream that counts the bytes it moves either way into `moved`.
pub struct Counted<T> {
    inner: T,
    moved: Arc<AtomicU64>,
}

impl<T> Counted<T> {
    pub fn new(inner: T, moved: Arc<AtomicU64>) -> Self {
        Counted { inner, moved }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.inner).poll_read(cx, buf);
        let n = buf.filled().len().saturating_sub(before);
        this.moved.fetch_add(n as u64, Ordering::Relaxed);
        r
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            this.moved.fetch_add(*n as u64, Ordering::Relaxed);
        }
        r
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = &r {
            this.moved.fetch_add(*n as u64, Ordering::Relaxed);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    /// A body whose frames a test sends through a channel.
    struct Chan(tokio::sync::mpsc::Receiver<Bytes>);

    impl Body for Chan {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.0.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
        }
    }

    #[tokio::test]
    async fn a_stalled_body_fails_after_the_timeout() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let tripped = Arc::new(AtomicBool::new(false));
        let mut b = Deadline::new(Chan(rx), Duration::from_millis(300), 0, tripped.clone());
        tx.send(Bytes::from_static(b"abc")).await.unwrap();
        assert!(b.frame().await.unwrap().is_ok());
        let started = Instant::now();
        let e = b.frame().await.unwrap().unwrap_err();
        assert!(e.to_string().contains("no bytes"), "{e}");
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(290) && took < Duration::from_secs(3),
            "{took:?}"
        );
        assert!(tripped.load(Ordering::Acquire));
        assert!(b.frame().await.unwrap().is_err(), "it stays failed");
    }

    #[tokio::test]
    async fn a_trickle_fails_below_the_minimum_rate() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let tripped = Arc::new(AtomicBool::new(false));
        let mut b = Deadline::new(Chan(rx), Duration::from_millis(500), 1000, tripped.clone());
        tokio::spawn(async move {
            while tx.send(Bytes::from_static(b"x")).await.is_ok() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let started = Instant::now();
        let e = loop {
            match b.frame().await.unwrap() {
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert!(e.to_string().contains("below the minimum"), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(tripped.load(Ordering::Acquire));
    }

    #[tokio::test]
    async fn a_body_fast_enough_is_untouched() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let tripped = Arc::new(AtomicBool::new(false));
        let b = Deadline::new(Chan(rx), Duration::from_secs(1), 100, tripped.clone());
        tokio::spawn(async move {
            for _ in 0..5 {
                tx.send(Bytes::from(vec![b'x'; 200])).await.unwrap();
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        });
        let all = b.collect().await.unwrap().to_bytes();
        assert_eq!(all.len(), 1000);
        assert!(!tripped.load(Ordering::Acquire));
    }
}
