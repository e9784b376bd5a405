-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "require_two_factor" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "recovery_code_hashes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "totp_enabled_at" TIMESTAMPTZ(3),
ADD COLUMN     "totp_last_step" BIGINT,
ADD COLUMN     "totp_pending_secret" TEXT,
ADD COLUMN     "totp_secret" TEXT;

-- CreateTable
CREATE TABLE "sso_connections" (
    "organization_id" UUID NOT NULL,
    "discovery_url" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_sealed" TEXT NOT NULL,
    "client_secret_last4" TEXT NOT NULL,
    "allowed_domains" TEXT[],
    "require_sso" BOOLEAN NOT NULL DEFAULT false,
    "jit_role_id" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sso_connections_pkey" PRIMARY KEY ("organization_id")
);

-- AddForeignKey
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
