// Progress.cs — the delegate through which the library calls back into managed code during a
// fit (progress reports and cancellation).

using System;
using System.Runtime.InteropServices;

namespace KKMeans
{
    /// <summary>
    /// The native progress callback: the library calls it on the fitting thread (the thread of
    /// the P/Invoke call) at each stage start and about every 0.1 s; non-zero cancels the fit.
    /// It must not throw: nothing may unwind through the library's frames.
    /// </summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    internal delegate int NativeProgress([MarshalAs(UnmanagedType.LPStr)] string stage, double fraction);
}
