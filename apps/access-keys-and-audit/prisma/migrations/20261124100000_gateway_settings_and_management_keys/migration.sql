-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "gateway_credit_micros" BIGINT NOT NULL DEFAULT 100000000,
ADD COLUMN     "gateway_payment_method" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "management_keys" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT,
    "key_hash" TEXT NOT NULL,
    "key_last4" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "management_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "management_keys_key_hash_key" ON "management_keys"("key_hash");

-- CreateIndex
CREATE INDEX "management_keys_organization_id_created_at_idx" ON "management_keys"("organization_id", "created_at");

-- AddForeignKey
ALTER TABLE "management_keys" ADD CONSTRAINT "management_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
