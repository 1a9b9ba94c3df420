import { Icon, type IconProps } from '@chakra-ui/react';

/** A few inline line icons (24×24, stroke): no icon library on the landing route. */
function make(paths: React.ReactNode) {
  return function LineIcon(props: IconProps) {
    return (
      <Icon {...props} asChild>
        <svg
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
          aria-hidden="true"
          focusable="false"
        >
          {paths}
        </svg>
      </Icon>
    );
  };
}

export const LogoIcon = (props: IconProps) => (
  <Icon {...props} asChild>
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="currentColor" />
      <path d="M8 9h16v3H8zm0 5.5h7v3H8zm9 0h7v3h-7zM8 20h7v3H8zm9 0h7v3h-7z" fill="#fff" />
    </svg>
  </Icon>
);

export const ChartIcon = make(
  <>
    <path d="M3 3v18h18" />
    <path d="M7 15l4-4 3 3 5-6" />
  </>,
);
export const FunctionIcon = make(
  <>
    <path d="M9 20c2 0 2.5-2 3-5l1.5-7c.5-2.5 1.5-4 3.5-4" />
    <path d="M7 11h8" />
  </>,
);
export const BookIcon = make(
  <>
    <path d="M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2z" />
    <path d="M4 21V5" />
    <path d="M9 7h6" />
  </>,
);
export const SparkIcon = make(
  <>
    <path d="M12 3v4M12 17v4M3 12h4M17 12h4" />
    <path d="M12 8l1.5 2.5L16 12l-2.5 1.5L12 16l-1.5-2.5L8 12l2.5-1.5z" />
  </>,
);
export const MoonIcon = make(<path d="M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z" />);
export const SunIcon = make(
  <>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </>,
);
export const CheckIcon = make(<path d="M5 12l5 5 9-10" />);
export const ExternalIcon = make(
  <>
    <path d="M14 4h6v6" />
    <path d="M20 4l-9 9" />
    <path d="M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
  </>,
);
export const MailIcon = make(
  <>
    <rect x="3" y="5" width="18" height="14" rx="2" />
    <path d="M3 7l9 6 9-6" />
  </>,
);
export const ClockIcon = make(
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7v5l3 2" />
  </>,
);
export const LockIcon = make(
  <>
    <rect x="4" y="11" width="16" height="10" rx="2" />
    <path d="M8 11V7a4 4 0 0 1 8 0v4" />
  </>,
);

export function StarIcon(props: IconProps) {
  return (
    <Icon {...props} asChild>
      <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z"
        />
      </svg>
    </Icon>
  );
}
