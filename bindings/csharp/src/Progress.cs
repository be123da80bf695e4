// Progress.cs — progress reports and cancellation of a fit: the public FitProgress value, and
// the delegate through which the library calls back into managed code during a fit.

using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace FastKKM
{
    /// <summary>One progress report of a fit (see <see cref="KernelKMeans.Fit(float[,], CancellationToken, IProgress{FitProgress})"/>).</summary>
    public struct FitProgress
    {
        /// <summary>A report of <paramref name="fraction"/> of <paramref name="stage"/> done.</summary>
        public FitProgress(string stage, double fraction)
        {
            Stage = stage;
            Fraction = fraction;
        }

        /// <summary>
        /// The running stage: "gamma", "landmarks", "kernel", "kernel+eigen", "rank", "features",
        /// "seeding", "lloyd", "minibatch", "assign", and "done" once at the end of a successful
        /// fit (stages repeat per restart when n_init &gt; 1).
        /// </summary>
        public string Stage { get; }

        /// <summary>The part of the stage done, in [0, 1].</summary>
        public double Fraction { get; }

        /// <summary>"stage 42%".</summary>
        public override string ToString()
        {
            return Stage + " " + Math.Round(100 * Fraction) + "%";
        }
    }

    /// <summary>
    /// The native progress callback: the library calls it on the fitting thread (the thread of
    /// the P/Invoke call) at each stage start and about every 0.1 s; non-zero cancels the fit.
    /// It must not throw: nothing may unwind through the library's frames.
    /// </summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate int NativeProgress([MarshalAs(UnmanagedType.LPStr)] string stage, double fraction);

    /// <summary>
    /// One fit's callback: cancels when the token is cancelled, forwards reports to the
    /// IProgress, and keeps any exception the IProgress throws (it cancels the fit and is
    /// rethrown by <see cref="Finish"/>).
    /// </summary>
    internal sealed class FitReporter
    {
        private readonly CancellationToken token;
        private readonly IProgress<FitProgress> progress;
        private Exception error;

        internal FitReporter(CancellationToken token, IProgress<FitProgress> progress)
        {
            this.token = token;
            this.progress = progress;
            Callback = Report;
        }

        /// <summary>The delegate handed to the library; the caller keeps it alive for the fit.</summary>
        internal NativeProgress Callback { get; }

        private int Report(string stage, double fraction)
        {
            try
            {
                if (token.IsCancellationRequested) return 1;
                if (progress != null) progress.Report(new FitProgress(stage, fraction));
                return 0;
            }
            catch (Exception e)
            {
                if (error == null) error = e;
                return 1;
            }
        }

        /// <summary>
        /// Turns the native fit's status into a return or an exception: the IProgress's own
        /// exception if it threw, else OperationCanceledException for a cancel.
        /// </summary>
        internal void Finish(int status)
        {
            GC.KeepAlive(Callback);
            if (error != null) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(error).Throw();
            if (status == (int)Status.Cancelled)
            {
                throw new OperationCanceledException("the fit was cancelled; the model is unchanged", token);
            }
        }
    }
}
