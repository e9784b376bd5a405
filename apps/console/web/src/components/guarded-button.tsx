import { useId, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { usePermissionLabel } from './use-permissions';
import { useHolds } from './use-session';

interface GuardedButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'disabled'> {
  /** The permission the action needs; without it the button is shown disabled, saying which. */
  permission: string;
  /** Disabled for another reason, with that reason as its tooltip (the owner cannot be removed, ...). */
  disabledReason?: string;
  busy?: boolean;
  children: ReactNode;
}

/**
 * A button for an action that needs a permission. A member without it sees the button disabled, with a
 * tooltip naming the permission (research: peers' users asked for the reason, not a hidden control).
 * aria-disabled rather than disabled, so the button stays focusable and its tooltip readable by
 * keyboard and screen reader. The server answers 403 whatever the browser shows.
 */
export function GuardedButton({ permission, disabledReason, busy, children, onClick, className, type = 'button', ...rest }: GuardedButtonProps) {
  const holds = useHolds(permission);
  const label = usePermissionLabel(permission);
  const tipId = useId();
  const reason = !holds ? `Needs the permission ${label}` : disabledReason;
  const disabled = reason !== undefined || busy === true;
  return (
    <span className="guarded">
      <button
        {...rest}
        type={disabled ? 'button' : type}
        className={className}
        aria-disabled={disabled || undefined}
        aria-describedby={reason ? tipId : undefined}
        onClick={disabled ? (event) => event.preventDefault() : onClick}
      >
        {children}
      </button>
      {reason && (
        <span role="tooltip" id={tipId} className="tooltip">
          {reason}
        </span>
      )}
    </span>
  );
}
