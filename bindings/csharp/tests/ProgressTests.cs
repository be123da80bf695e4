// ProgressTests.cs — CancellationToken and IProgress<FitProgress> during Fit (NUnit 2).

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    // Records each report synchronously, on the thread that reports it.
    internal sealed class RecordingProgress : IProgress<FitProgress>
    {
        public readonly List<FitProgress> Reports = new List<FitProgress>();
        public readonly List<int> Threads = new List<int>();

        public void Report(FitProgress value)
        {
            Reports.Add(value);
            Threads.Add(Thread.CurrentThread.ManagedThreadId);
        }
    }

    internal sealed class ThrowingProgress : IProgress<FitProgress>
    {
        public readonly Exception Error = new InvalidOperationException("boom from the progress handler");

        public void Report(FitProgress value)
        {
            throw Error;
        }
    }

    [TestFixture]
    public class ProgressTests
    {
        // A fit that runs for minutes unless cancelled: mini-batch steps until max_iter
        // (epsilon = 0 never stops early), each a small block of work.
        const string LongFit = "k=20 method=minibatch max_iter=1000000 epsilon=0 threads=2 seed=1";
        const int LongN = 20000;
        static readonly float[,] LongX = Gaussian(LongN, 8, 5);

        const string SmallFit = "k=3 method=exact gamma=0.5 seed=1";
        static readonly float[,] SmallX = Gaussian(300, 2, 6);

        static float[,] Gaussian(int n, int d, int seed)
        {
            var random = new Random(seed);
            var x = new float[n, d];
            for (int i = 0; i < n; ++i)
            {
                for (int j = 0; j < d; ++j)
                {
                    double u = 1.0 - random.NextDouble();
                    double v = random.NextDouble();
                    x[i, j] = (float)(Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v));
                }
            }
            return x;
        }

        static float[,] Uniform(int n, int d, int seed)
        {
            var random = new Random(seed);
            var x = new float[n, d];
            for (int i = 0; i < n; ++i)
            {
                for (int j = 0; j < d; ++j) x[i, j] = (float)random.NextDouble();
            }
            return x;
        }

        // Stops the fit (through its token) after 6 Lloyd reports.
        sealed class LloydWatcher : IProgress<FitProgress>
        {
            public readonly RecordingProgress Recorder = new RecordingProgress();
            public readonly CancellationTokenSource Source = new CancellationTokenSource();
            int lloyd;

            public void Report(FitProgress value)
            {
                Recorder.Report(value);
                if (value.Stage == "lloyd" && ++lloyd == 6) Source.Cancel();
            }
        }

        // Lloyd on uniform data with k = 50 takes dozens of iterations of about 0.1 s, so it
        // reports several times. (Within the seeding and minibatch stages the library's
        // fractions are not monotone: they restart with each inner loop.)
        [Test]
        public void ProgressReportsArriveOnTheFittingThreadWithIncreasingLloydFractions()
        {
            float[,] x = Uniform(20000, 8, 8);
            var watcher = new LloydWatcher();
            using (var model = new KernelKMeans("k=50 method=nystrom m=300 max_iter=300 tol=0 threads=2 seed=1"))
            {
                try
                {
                    model.Fit(x, watcher.Source.Token, watcher);
                }
                catch (OperationCanceledException)
                {
                }
            }
            List<FitProgress> reports = watcher.Recorder.Reports;
            var lloyd = new List<double>();
            for (int i = 0; i < reports.Count; ++i)
            {
                Assert.AreEqual(Thread.CurrentThread.ManagedThreadId, watcher.Recorder.Threads[i], "reported on the fitting thread");
                Assert.That(reports[i].Fraction, Is.InRange(0.0, 1.0));
                if (reports[i].Stage == "lloyd") lloyd.Add(reports[i].Fraction);
            }
            Assert.That(lloyd.Count, Is.GreaterThanOrEqualTo(3));
            // Never backwards; a poll between blocks of an iteration may repeat the iteration's fraction.
            for (int i = 1; i < lloyd.Count; ++i) Assert.That(lloyd[i], Is.GreaterThanOrEqualTo(lloyd[i - 1]));
            Assert.That(lloyd[lloyd.Count - 1], Is.GreaterThan(lloyd[0]));
        }

        [Test]
        public void ProgressSeesTheFinalDoneAndDoesNotChangeTheFit()
        {
            var progress = new RecordingProgress();
            using (var listened = new KernelKMeans(SmallFit))
            using (var plain = new KernelKMeans(SmallFit))
            {
                listened.Fit(SmallX, default(CancellationToken), progress);
                plain.Fit(SmallX);
                CollectionAssert.AreEqual(plain.Labels, listened.Labels, "progress does not change the fit");
            }
            List<FitProgress> reports = progress.Reports;
            Assert.That(reports.Count, Is.GreaterThanOrEqualTo(3));
            Assert.IsTrue(reports.Exists(p => p.Stage == "lloyd"));
            Assert.AreEqual("done", reports[reports.Count - 1].Stage);
            Assert.AreEqual(1.0, reports[reports.Count - 1].Fraction);
        }

        [Test]
        public void ProgressOfTReportsArriveThroughItsCallback()
        {
            int count = 0;
            string last = null;
            var seen = new ManualResetEventSlim();
            var progress = new Progress<FitProgress>(p =>
            {
                Interlocked.Increment(ref count);
                if (p.Stage == "done")
                {
                    last = p.ToString();
                    seen.Set();
                }
            });
            using (var model = new KernelKMeans(SmallFit))
            {
                model.Fit(SmallX, progress: progress);
            }
            // Progress<T> posts each report to the thread pool (no SynchronizationContext here).
            Assert.IsTrue(seen.Wait(10000), "the done report arrived");
            Assert.That(count, Is.GreaterThanOrEqualTo(3));
            Assert.AreEqual("done 100%", last);
        }

        [Test]
        public void ATokenCancelledAfterADelayCancelsALargeFitQuicklyAndLeavesTheModelUnchanged()
        {
            using (var model = new KernelKMeans(SmallFit))
            using (var source = new CancellationTokenSource())
            {
                int[] before = model.Fit(SmallX).Labels;
                model.Params(LongFit);
                var progress = new RecordingProgress();
                source.CancelAfter(1000);
                var clock = Stopwatch.StartNew();
                var e = Assert.Throws<OperationCanceledException>(() => model.Fit(LongX, source.Token, progress));
                double afterCancel = clock.Elapsed.TotalSeconds - 1.0;
                Console.WriteLine("CancelAfter(1 s): Fit threw {0:F3} s after the token was cancelled", afterCancel);
                Assert.AreEqual(source.Token, e.CancellationToken);
                Assert.That(afterCancel, Is.LessThan(1.0));
                Assert.That(progress.Reports.Count, Is.GreaterThan(1), "reports arrived before the cancel");
                CollectionAssert.AreEqual(before, model.Labels, "the model is unchanged");
                Assert.AreEqual(300, model.NumTrain);
            }
        }

        [Test]
        public void CancellingFromAnotherThreadEndsTheFittingThreadWithinACoupleOfSeconds()
        {
            using (var source = new CancellationTokenSource())
            using (var fitting = new ManualResetEventSlim())
            {
                Exception thrown = null;
                var worker = new Thread(() =>
                {
                    try
                    {
                        using (var model = new KernelKMeans(LongFit))
                        {
                            fitting.Set();
                            model.Fit(LongX, source.Token);
                        }
                    }
                    catch (Exception e)
                    {
                        thrown = e;
                    }
                });
                worker.Start();
                Assert.IsTrue(fitting.Wait(30000));
                Thread.Sleep(1000);  // well into the fit (minutes, uncancelled)
                Assert.IsTrue(worker.IsAlive, "the fit is still running");
                var clock = Stopwatch.StartNew();
                source.Cancel();
                bool ended = worker.Join(10000);
                double elapsed = clock.Elapsed.TotalSeconds;
                if (!ended) worker.Join();  // never leave a fit running
                Console.WriteLine("Cancel() from another thread: fit thread ended {0:F3} s later", elapsed);
                Assert.IsTrue(ended, "the fit ignored the token");
                Assert.That(elapsed, Is.LessThan(2.0));
                Assert.IsInstanceOf<OperationCanceledException>(thrown);
                Assert.AreEqual(source.Token, ((OperationCanceledException)thrown).CancellationToken);
            }
        }

        [Test]
        public void AnAlreadyCancelledTokenThrowsBeforeFitting()
        {
            using (var model = new KernelKMeans(LongFit))
            using (var source = new CancellationTokenSource())
            {
                source.Cancel();
                var progress = new RecordingProgress();
                var clock = Stopwatch.StartNew();
                Assert.Throws<OperationCanceledException>(() => model.Fit(LongX, source.Token, progress));
                Assert.That(clock.Elapsed.TotalSeconds, Is.LessThan(1.0));
                Assert.AreEqual(0, progress.Reports.Count);
                var e = Assert.Throws<KKMeansException>(() => { int[] unused = model.Labels; });
                Assert.AreEqual(Status.NotFitted, e.Status);
            }
        }

        [Test]
        public void AnExceptionInTheProgressHandlerCancelsTheFitAndIsRethrown()
        {
            using (var model = new KernelKMeans(SmallFit))
            {
                int[] before = model.Fit(SmallX).Labels;
                model.Params(LongFit);
                var progress = new ThrowingProgress();
                var clock = Stopwatch.StartNew();
                var e = Assert.Throws<InvalidOperationException>(() => model.Fit(LongX, progress: progress));
                Assert.AreSame(progress.Error, e);
                Assert.That(clock.Elapsed.TotalSeconds, Is.LessThan(2.0));
                CollectionAssert.AreEqual(before, model.Labels, "the model is unchanged");
                model.Params(SmallFit).Fit(SmallX, new CancellationTokenSource().Token);
                CollectionAssert.AreEqual(before, model.Labels);
            }
        }

        [Test]
        public void EveryFitShapeTakesATokenAndAProgress()
        {
            const int n = 300;
            float[] flat = new float[n * 2];
            Buffer.BlockCopy(SmallX, 0, flat, 0, flat.Length * sizeof(float));
            double[,] x64 = new double[n, 2];
            double[] flat64 = new double[n * 2];
            for (int i = 0; i < n; ++i)
            {
                for (int j = 0; j < 2; ++j)
                {
                    x64[i, j] = SmallX[i, j];
                    flat64[2 * i + j] = SmallX[i, j];
                }
            }
            float[] w = new float[n];
            double[] w64 = new double[n];
            for (int i = 0; i < n; ++i)
            {
                w[i] = 1f;
                w64[i] = 1.0;
            }
            using (var source = new CancellationTokenSource())
            using (var model = new KernelKMeans(SmallFit))
            {
                CancellationToken token = source.Token;
                var progress = new RecordingProgress();
                int[] reference = model.Fit(SmallX).Labels;
                CollectionAssert.AreEqual(reference, model.Fit(SmallX, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(SmallX, w, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(flat, n, 2, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(flat, n, 2, w, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(x64, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(x64, w64, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(flat64, n, 2, token, progress).Labels);
                CollectionAssert.AreEqual(reference, model.Fit(flat64, n, 2, w64, token, progress).Labels);
                int done = progress.Reports.FindAll(p => p.Stage == "done").Count;
                Assert.AreEqual(8, done);
                // A null array is still an ArgumentNullException on the progress path.
                Assert.Throws<ArgumentNullException>(() => model.Fit((float[,])null, token));
            }
        }
    }
}
