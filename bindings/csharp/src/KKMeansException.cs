// KKMeansException.cs — the library's status codes and the exception for failures other
// than invalid arguments (those throw System.ArgumentException with the library's message).

using System;

namespace FastKKM
{
    /// <summary>Status codes of the C API (kkm_status); the numbers are part of its ABI.</summary>
    public enum Status
    {
        /// <summary>Success (never thrown).</summary>
        Ok = 0,
        /// <summary>A null, a bad size, an unknown key, a value out of range (thrown as ArgumentException).</summary>
        InvalidArgument = 1,
        /// <summary>NaN/Inf in the data, negative weights, zero-variance data for gamma=auto.</summary>
        InvalidData = 2,
        /// <summary>The call needs a fitted model.</summary>
        NotFitted = 3,
        /// <summary>The estimate exceeds max_memory_mb, or an allocation failed.</summary>
        OutOfMemory = 4,
        /// <summary>A file could not be read or written.</summary>
        IO = 5,
        /// <summary>A model file or buffer is malformed.</summary>
        Format = 6,
        /// <summary>A progress callback asked to stop.</summary>
        Cancelled = 7,
        /// <summary>A bug in the library: please report it with the message.</summary>
        Internal = 8,
    }

    /// <summary>
    /// A failed library call other than an invalid argument: its <see cref="Status"/> and the
    /// library's message (which names the parameter, row, column or file at fault).
    /// </summary>
    public class KKMeansException : Exception
    {
        /// <summary>The library's status code.</summary>
        public Status Status { get; private set; }

        /// <summary>A failure with the library's status and message.</summary>
        public KKMeansException(Status status, string message) : base(message)
        {
            Status = status;
        }
    }
}
