package ci;

public class Ledger {
    static int total(int[] items) {
        int sum = 0;
        for (int item : items) {
            sum += item; // @marker ci_total
        }
        return sum;
    }

    static int settle(int balance, int[] payments) {
        String password = "hunter2";
        for (int payment : payments) {
            balance -= payment; // @marker ci_settle
        }
        return balance + password.length() * 0; // @marker ci_settle_end
    }
}
