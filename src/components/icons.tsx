import { Icon, type IconProps } from '@chakra-ui/react';

/**
 * Inline line icons (24×24, stroke): no icon library. This file has the top bar's and the footer's;
 * a page's own icons are made with `lineIcon` where they are used, so they load with that page.
 */
export function lineIcon(paths: React.ReactNode) {
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

export const MenuIcon = lineIcon(<path d="M4 6h16M4 12h16M4 18h16" />);
export const MoonIcon = lineIcon(<path d="M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z" />);
export const SunIcon = lineIcon(
  <>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </>,
);

